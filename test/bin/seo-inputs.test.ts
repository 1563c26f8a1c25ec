/** seo crawl refuses a start or base URL that is not http(s): a file: URL is not a page to fetch. */
import { describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { binary, root, run } from "../helpers/bin.ts";

const seo = binary("seo");
const fresh = () => mkdtempSync(join(tmpdir(), "seo-inputs-"));

describe("seo crawl's URLs are http(s) only", () => {
  for (const url of ["file:///etc/", "ftp://example.com/", "data:text/html,<title>x</title>", "javascript:alert(1)"])
    test(`--url ${url} is refused as a bad value, and nothing is written`, async () => {
      const dir = fresh();
      const r = await run(seo, ["crawl", "--url", url, "--run-dir", dir, "--json"]);
      expect(r.code).toBe(2);
      expect(r.json.error.code).toBe("INVALID_VALUE");
      expect(r.json.error.message).toContain("http");
      expect(await Bun.file(join(dir, "crawl.json")).exists()).toBe(false);
    });

  for (const base of ["ftp://x/", "file:///srv/site/"])
    test(`--base-url ${base} is refused as a bad value`, async () => {
      const r = await run(seo, [
        "crawl",
        "--dir",
        join(root, "examples", "site"),
        "--base-url",
        base,
        "--run-dir",
        fresh(),
        "--json",
      ]);
      expect(r.code).toBe(2);
      expect(r.json.error.code).toBe("INVALID_VALUE");
    });

  test("an http or https URL in any letter case is accepted", async () => {
    const r = await run(seo, [
      "crawl",
      "--dir",
      join(root, "examples", "site"),
      "--base-url",
      "HTTPS://docs.example/",
      "--run-dir",
      fresh(),
      "--json",
    ]);
    expect(r.code).toBe(0);
    expect(r.json.data.start_url).toBe("https://docs.example/");
  });
});
