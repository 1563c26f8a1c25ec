/**
 * Which declared environment variables verify treats as a tool's upstream
 * (pointed at its listener for the side-effect probes), and which requests a
 * dry run or a read may send there.
 */
import { describe, expect, test } from "bun:test";
import { normalizeDescribe } from "../../verify/base/describe-doc.ts";
import { changesUnderDryRun, changesUnderRead, type Heard, upstreamsOf } from "../../verify/base/upstream.ts";

const env = (name: string, description: string, extra: Record<string, unknown> = {}) => ({
  name,
  scope: "config",
  description,
  ...extra,
});

const doc = normalizeDescribe({
  contract_version: 0,
  tool: "shop",
  env: [env("SHOP_API_URL", "The shop's HTTP API base URL.")],
  commands: [
    {
      name: "order create",
      verb: "create",
      tier: 1,
      rw: "write",
      flags: [],
      result_schema: "shop.order.create@1",
      env: [
        env("SHOP_LEDGER_URL", "The ledger: a postgres:// URL, or a SQLite file."),
        env("SHOP_STORAGE_ENDPOINT", "S3-compatible storage: its endpoint URL."),
        env("SHOP_MIRROR", "A mirror to post to.", { upstream: true }),
        env("SHOP_CALLBACK_URL", "Where results are posted (never during a run).", { upstream: false }),
        env("SHOP_REGION", "The region."),
      ],
    },
  ],
} as never).doc;

const heard = (method: string, marked = false): Heard => ({ method, path: "/x", variable: "V", marked });

describe("upstreams", () => {
  test("a declared …_URL, …_URI or …_ENDPOINT of no other scheme than http(s), or one marked upstream: the tool's and the command's", () => {
    expect(upstreamsOf(doc, doc.commands[0]!)).toEqual(["SHOP_API_URL", "SHOP_MIRROR", "SHOP_STORAGE_ENDPOINT"]);
  });

  test("a dry run may send only safe methods, unmarked; a read may also query by POST, but never PUT, PATCH or DELETE", () => {
    for (const m of ["GET", "HEAD", "OPTIONS", "TRACE"]) expect(changesUnderDryRun(heard(m))).toBe(false);
    for (const m of ["POST", "PUT", "PATCH", "DELETE"]) expect(changesUnderDryRun(heard(m))).toBe(true);
    expect(changesUnderDryRun(heard("GET", true))).toBe(true);
    for (const m of ["GET", "HEAD", "POST"]) expect(changesUnderRead(heard(m))).toBe(false);
    for (const m of ["PUT", "PATCH", "DELETE"]) expect(changesUnderRead(heard(m))).toBe(true);
    expect(changesUnderRead(heard("POST", true))).toBe(true);
  });
});
