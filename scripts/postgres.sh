#!/usr/bin/env bash
# Starts a throwaway PostgreSQL server on 127.0.0.1 for the ledger tests and
# prints its URL. Installs the server from Debian's packages when it is absent.
# A server that was stopped is started again on its data (the outage tests).
#   scripts/postgres.sh [PORT]        (default 55432)
#   scripts/postgres.sh PORT stop     stop it at once (immediate shutdown), keeping its data
set -euo pipefail
port="${1:-55432}"
bindir="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)"
if [ -z "$bindir" ]; then
  if [ "$(id -u)" = 0 ]; then apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >&2
  else sudo apt-get update -qq >&2 && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >&2; fi
  bindir="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)"
fi
data="${TMPDIR:-/tmp}/agent-cli-kit-pg-$port"
# PostgreSQL refuses to run as root: run it as the postgres user when we are root.
as() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
if [ "${2:-}" = stop ]; then
  as "$bindir/pg_ctl" -D "$data" -m immediate -w stop >/dev/null
  exit 0
fi
if ! as "$bindir/pg_isready" -h 127.0.0.1 -p "$port" -q 2>/dev/null; then
  fresh=0
  if [ ! -f "$data/PG_VERSION" ]; then
    rm -rf "$data" && mkdir -p "$data"
    [ "$(id -u)" = 0 ] && chown postgres "$data"
    as "$bindir/initdb" -D "$data" -U ledger --auth=trust -E UTF8 >/dev/null
    fresh=1
  fi
  as "$bindir/pg_ctl" -D "$data" -l "$data/log" -o "-c listen_addresses=127.0.0.1 -p $port -k $data -c fsync=off" -w start >/dev/null
  [ "$fresh" = 1 ] && as "$bindir/createdb" -h 127.0.0.1 -p "$port" -U ledger ledger
fi
echo "postgres://ledger@127.0.0.1:$port/ledger"
