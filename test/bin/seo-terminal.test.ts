/**
 * The human door: a list on a real terminal (a pseudo-terminal from script(1))
 * of 80 and 160 columns fits the width, keeps the key columns whole (the id,
 * the site-relative path) and loses no word of a message.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { binary, root } from "../helpers/bin.ts";

const RUN = join(root, "test", "fixtures", "seo-run");

function onTerminal(columns: number, argv: string[]): string[] {
  const command = `stty cols ${columns}; NO_COLOR=1 ${[binary("seo"), ...argv].map((a) => `'${a}'`).join(" ")} 2>/dev/null`;
  const p = Bun.spawnSync(["script", "-qec", command, "/dev/null"], {
    stdout: "pipe",
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", TERM: "xterm" },
  });
  if (p.exitCode !== 0) throw new Error(`script(1) failed: ${p.stderr.toString()}`);
  return p.stdout
    .toString()
    .replace(/\r/g, "")
    .split("\n")
    .filter((l) => l.trim() !== "");
}

const findings = JSON.parse(
  Bun.spawnSync([binary("seo"), "finding", "list", "--run-dir", RUN, "--limit", "8", "--json"]).stdout.toString(),
).data.items as { id: string; url: string; message: string }[];

describe("seo finding list on a terminal", () => {
  for (const columns of [80, 160])
    test(`${columns} columns: every line fits, ids and paths whole, every message complete`, () => {
      const lines = onTerminal(columns, ["finding", "list", "--run-dir", RUN, "--limit", "8"]);
      expect(lines[0]).toBe("items:");
      for (const l of lines) expect(l.length).toBeLessThanOrEqual(columns);
      const text = lines.join("\n");
      for (const f of findings) {
        const row = lines.find((l) => l.includes(f.id))!;
        expect(row).toBeDefined();
        expect(row).toContain(new URL(f.url).pathname); // site-relative, never cut
        // The message, read back across its continuation lines, is all there.
        const at = lines.indexOf(row);
        const start = row.indexOf(new URL(f.url).pathname) + new URL(f.url).pathname.length;
        const more = lines.slice(at + 1).findIndex((l) => !/^\s{20,}\S/.test(l));
        const continued = lines.slice(at + 1, more === -1 ? undefined : at + 1 + more).map((l) => l.trim());
        // (a word longer than the column is split across lines, so compare without the breaks)
        expect([row.slice(start).trim(), ...continued].join("").replace(/\s+/g, "")).toBe(
          f.message.replace(/\s+/g, ""),
        );
      }
      if (columns === 160) expect(lines.length).toBe(1 + 1 + findings.length); // one line per row, wide enough
      expect(text).toContain("  /blog/first-harvest.html  "); // the URL column: the path on the site, not the whole URL
    });
});
