/** The compiled dist/seo's streams, as only a process shows them: one JSON document on stdout, no ANSI when piped, TOON bytes. */
import { beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ANSI, binary, root, run } from "../helpers/bin.ts";
import { SLOW_HOOK } from "../helpers/hooks.ts";

const seo = binary("seo");
const site = join(root, "examples", "site");
let runDir: string;

/** A run dir with the example site crawled, extracted and audited. */
beforeAll(async () => {
  runDir = mkdtempSync(join(tmpdir(), "seo-streams-"));
  for (const stage of [["crawl", "--dir", site, "--base-url", "https://harbour.example"], ["extract"], ["audit"]]) {
    const r = await run(seo, [...stage, "--run-dir", runDir]);
    expect(r.code).toBe(0);
  }
}, SLOW_HOOK);

const ENVELOPE_KEYS = ["ok", "contract_version", "tool", "command", "data", "error", "meta"];

describe("seo: output streams", () => {
  test("stdout is exactly one JSON object, even with progress on stderr", async () => {
    const dir = mkdtempSync(join(tmpdir(), "seo-one-"));
    const r = await run(seo, ["crawl", "--dir", site, "--run-dir", dir]);
    expect(r.code).toBe(0);
    expect(Object.keys(r.json)).toEqual(ENVELOPE_KEYS);
    expect(r.json.meta.run_dir).toBe(dir);
    expect(r.json.meta.schema).toBe("seo.crawl@1");
  });

  test("no ANSI on stdout or stderr when piped, even when the environment asks for colour", async () => {
    const env = { FORCE_COLOR: "3", TERM: "xterm-256color", CLICOLOR_FORCE: "1" };
    for (const argv of [
      ["finding", "list", "--run-dir", runDir],
      ["audit", "--severity", "urgent"],
      ["--help"],
      ["audit", "--help"],
      ["nope"],
    ]) {
      const r = await run(seo, argv, { env });
      expect(ANSI.test(r.stdout)).toBe(false);
      expect(ANSI.test(r.stderr)).toBe(false);
    }
  });

  test("--toon prints the same envelope as TOON", async () => {
    const r = await run(seo, ["finding", "list", "--run-dir", runDir, "--limit", "2", "--toon"]);
    expect(r.code).toBe(0);
    const { decode } = await import("@toon-format/toon");
    const json = await run(seo, ["finding", "list", "--run-dir", runDir, "--limit", "2", "--json"]);
    const decoded = decode(r.stdout) as any;
    expect(decoded.data).toEqual(json.json.data);
    expect(decoded.meta.pagination).toEqual(json.json.meta.pagination);
  });
});
