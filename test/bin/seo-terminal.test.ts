/**
 * The human door: a list on a real terminal (a pseudo-terminal from script(1))
 * of 80, 120 and 160 columns fits the width, keeps ids, enum values and
 * paths whole and loses no word of a message; help on 80 columns puts a long
 * enum's values on lines of their own.
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
).data.items as { id: string; rule: string; severity: string; url: string; message: string }[];

describe("seo finding list on a terminal", () => {
  for (const columns of [80, 120, 160])
    test(`${columns} columns: every line fits, ids, rules, severities and paths whole, every message complete`, () => {
      const lines = onTerminal(columns, ["finding", "list", "--run-dir", RUN, "--limit", "8"]);
      expect(lines[0]).toBe("items:");
      for (const l of lines) expect(l.length).toBeLessThanOrEqual(columns);
      const text = lines.join("\n");
      const words = new Set(text.split(/\s+/));
      for (const f of findings) {
        // Whole words of their own: never cut to "http-…".
        for (const whole of [f.id, f.rule, f.severity, new URL(f.url).pathname]) expect(words).toContain(whole);
        // The message, read back across its wrapped lines (a word longer than the column is split), is all there.
        expect(text.replace(/\s+/g, "")).toContain(f.message.replace(/\s+/g, ""));
      }
      if (columns === 160) expect(lines.length).toBe(1 + 1 + findings.length); // one line per row, wide enough
      expect(text).toContain("/blog/first-harvest.html"); // the URL column: the path on the site, not the whole URL
      expect(text).not.toContain("https://harbour.example/blog/first-harvest.html");
    });
});

describe("--help on a terminal of 80 columns", () => {
  test("a long enum's values go on lines of their own, within 80 columns; the flag column is not padded to them", () => {
    const lines = onTerminal(80, ["finding", "list", "--help"]);
    const values = lines.filter((l) => /^ {20,}(one of: )?[a-z0-9-]+(, [a-z0-9-]+)*,?$/.test(l));
    expect(values.length).toBeGreaterThan(2);
    for (const l of values) expect(l.length).toBeLessThanOrEqual(80);
    for (const l of lines.filter((l) => l.startsWith("  --"))) expect(l.indexOf("  ", 4)).toBeLessThan(40);
    const text = lines.join("\n");
    expect(text).toMatch(/^ {2}--rule <value> +Show only this rule's findings\.$/m);
    for (const rule of ["http-status-code", "canonical-offsite", "viewport"]) expect(text).toContain(rule);
  });

  test("a repeatable enum flag lists its values", () => {
    const text = onTerminal(80, ["plan", "--help"]).join("\n");
    expect(text).toContain("--only <value…>");
    for (const action of ["set-lang", "add-viewport", "remove-duplicate-canonical", "fix-broken-link"])
      expect(text).toContain(action);
  });
});
