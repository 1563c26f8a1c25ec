#!/usr/bin/env bash
# The README's test command on a busy machine: a fresh clone of HEAD, then
# `npm test` ROUNDS times in a row (default 10) with LOOPS busy loops per core
# (default 2) running beside it the whole time. Prints each round's pass/fail
# counts and wall time, then how many rounds were green.
#
#   scripts/busy-suite.sh [ROUNDS] [LOOPS]
set -euo pipefail
rounds="${1:-10}"
loops="${2:-2}"
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
hogs=()
cleanup() {
  for pid in "${hogs[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
trap "exit 130" INT TERM

git clone -q "$repo" "$work/clone"
cd "$work/clone"
echo "commit $(git rev-parse --short HEAD); $(nproc) cores; $rounds rounds"
npm ci --no-audit --no-fund >/dev/null

for _ in $(seq $(($(nproc) * loops))); do
  (while :; do :; done) &
  hogs+=("$!")
done
echo "busy loops ($loops per core): ${hogs[*]}"

green=0
for round in $(seq "$rounds"); do
  started=$(date +%s)
  if npm test >"$work/round-$round.log" 2>&1; then status=green; green=$((green + 1)); else status=RED; fi
  pass=$(grep -Eo '^ *[0-9]+ pass' "$work/round-$round.log" | tail -1 | tr -d ' a-z')
  fail=$(grep -Eo '^ *[0-9]+ fail' "$work/round-$round.log" | tail -1 | tr -d ' a-z')
  echo "round $round: $status, ${pass:-?} pass, ${fail:-?} fail, $(($(date +%s) - started)) s"
  if [ "$status" = RED ]; then
    grep -E '^\(fail\)' "$work/round-$round.log" | head -20 || true
    cp "$work/round-$round.log" "/tmp/busy-suite-round-$round.log"
    echo "log kept: /tmp/busy-suite-round-$round.log"
  fi
done
echo "$green of $rounds rounds green"
[ "$green" = "$rounds" ]
