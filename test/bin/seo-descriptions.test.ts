/**
 * Meta descriptions worth publishing: planned from the page's main content
 * (never its navigation, header, footer or sidebar), whole sentences whose
 * ends know version numbers, file names, abbreviations and initials, unique
 * across the site, within the length description-length accepts; a page with
 * too little prose gets none and the plan says why. plan → gate → apply →
 * re-audit introduces no new finding. Real binaries, a real site folder.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { binary, run } from "../helpers/bin.ts";
import { APPROVER, gateKeys, writePolicy } from "../helpers/mutation.ts";

/** Each page's main text as sentences: the ground truth a description must be made of. */
const MAIN: Record<string, string[][]> = {
  "struct.html": [
    ["5. Coroutine objects"],
    [
      "The struct.py module converts between Python values and C structs represented as bytes objects.",
      "It was reworked in Python 3.5.2 and again in version 3.11.",
      "Formats such as e.g. native alignment follow the platform's C compiler.",
    ],
  ],
  "history.html": [
    [
      "Dr. Smith wrote the first draft of the tide tables in 1998, with help from J. R. Hartley and the harbour office.",
      "Versions 1.0 and 2.4.1 of tides.csv are kept in the archive.",
      "Nobody has changed the format since.",
    ],
  ],
  "twin-a.html": [
    [
      "Ferries leave the old harbour every hour between six in the morning and ten at night.",
      "Tickets are sold at the kiosk by the pier and on board.",
      "Bicycles travel free outside the rush hours.",
    ],
  ],
  "twin-b.html": [
    [
      "Ferries leave the old harbour every hour between six in the morning and ten at night.",
      "Tickets are sold at the kiosk by the pier and on board.",
      "Bicycles travel free outside the rush hours.",
    ],
  ],
  "long.html": [
    [
      "This single sentence about the harbour goes on and on without ever stopping, describing the boats, the nets, the gulls, the tides, the weather, the lighthouse keeper and his dog, the fish market and its prices, and much more besides.",
    ],
  ],
  "thin.html": [["Contact us."]],
};
/** A page whose existing description is twin-a's first offer: neither twin may be given it. */
const TAKEN =
  "Ferries leave the old harbour every hour between six in the morning and ten at night. Tickets are sold at the kiosk by the pier and on board.";

const page = (name: string, paragraphs: string[][], description = "") => `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>The harbour: ${name}</title>${description ? `\n  <meta name="description" content="${description}">` : ""}
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <link rel="canonical" href="https://desc.example/${name === "index" ? "" : `${name}.html`}">
</head>
<body>
  <header><p>Harbour Tools. Garden tools, forged by hand.</p></header>
  <div class="sphinxsidebar" role="navigation"><p>Glossary Dealing with Bugs These documents are about the harbour.</p></div>
  <div class="body" role="main">
    <h1>${name}</h1>
${paragraphs.map((p) => `    <p>${p.join(" ")}</p>`).join("\n")}
  </div>
  <footer><p>Copyright 2024 Harbour Tools. All rights reserved.</p></footer>
</body>
</html>
`;

let ws: { dir: string; site: string; run: string; env: Record<string, string> };
const seo = (args: string[]) => run(binary("seo"), [...args, "--json"], { env: ws.env, timeoutMs: 60_000 });
async function audit(runDir: string) {
  for (const stage of [["crawl", "--dir", ws.site, "--base-url", "https://desc.example/"], ["extract"], ["audit"]])
    expect((await seo([...stage, "--run-dir", runDir])).code).toBe(0);
  const listed = await seo(["finding", "list", "--run-dir", runDir, "--limit", "1000"]);
  return listed.json.data.items as { id: string; rule: string; url: string; message: string }[];
}

let plan: any;
let before: { id: string; rule: string; url: string; message: string }[];
beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), "seo-desc-"));
  const site = join(dir, "site");
  mkdirSync(site);
  const keys = gateKeys();
  ws = {
    dir,
    site,
    run: join(dir, "run"),
    env: {
      AGENT_GATE_PRIVATE_KEY: keys.privateKey,
      AGENT_GATE_PUBLIC_KEY: keys.publicKey,
      AGENT_POLICY_FILE: writePolicy(dir),
      AGENT_APPROVER_KEY: APPROVER.privateKey,
    },
  };
  const names = Object.keys(MAIN).map((f) => f.replace(".html", ""));
  writeFileSync(
    join(site, "index.html"),
    page(
      "index",
      [
        [
          "Welcome to the harbour's pages, where the tides, the ferries and the history of the old town are written down for visitors.",
        ],
        [...names, "taken"].map((n) => `<a href="/${n}.html">${n}</a>`),
      ],
      "The harbour's pages: tides, ferries and the history of the old town, written down for visitors.",
    ),
  );
  writeFileSync(
    join(site, "taken.html"),
    page("taken", [["A page about the timetable, whose description was written by hand long ago and is kept."]], TAKEN),
  );
  for (const [file, paragraphs] of Object.entries(MAIN))
    writeFileSync(join(site, file), page(file.replace(".html", ""), paragraphs));
  before = await audit(ws.run);
  const planned = await seo(["plan", "--run-dir", ws.run, "--only", "add-meta-description"]);
  expect(planned.code).toBe(0);
  plan = { ...planned.json.data, doc: JSON.parse(await Bun.file(join(ws.run, "plan.json")).text()) };
}, 120_000);

/** Each planned description as its edit writes it into the page (attribute escapes undone). */
const described = (): Record<string, string> =>
  Object.fromEntries(
    plan.doc.items
      .filter((i: any) => i.action === "add-meta-description")
      .map((i: any) => {
        const inserted = /content="([^"]*)"/.exec(i.params.edits.map((e: any) => e.insert).join(""))![1]!;
        return [
          i.params.file,
          inserted
            .replace(/&quot;/g, '"')
            .replace(/&lt;/g, "<")
            .replace(/&gt;/g, ">")
            .replace(/&amp;/g, "&"),
        ];
      }),
  );

describe("planned meta descriptions", () => {
  test("every one is whole consecutive sentences of its page's main text, from a sentence start (or its one long sentence, cut at a word with …)", () => {
    const got = described();
    expect(Object.keys(got).sort()).toEqual(["history.html", "long.html", "struct.html", "twin-a.html", "twin-b.html"]);
    for (const [file, content] of Object.entries(got)) {
      const runs = MAIN[file]!.flatMap((sentences) =>
        sentences.flatMap((_, i) => sentences.slice(i).map((__, j) => sentences.slice(i, i + j + 1).join(" "))),
      );
      const cutLong = content.endsWith("…") && MAIN[file]!.some((p) => p[0]!.startsWith(content.slice(0, -1)));
      expect({ file, content, fromSentences: runs.includes(content) || cutLong }).toEqual({
        file,
        content,
        fromSentences: true,
      });
    }
  });

  test("none starts mid-sentence: not after a version number, a file name, an abbreviation or an initial", () => {
    for (const content of Object.values(described()))
      expect(content).not.toMatch(/^(py |5 |11 |2 |g\. |R\. |Smith |Hartley |csv |1 |0 |Coroutine)/);
    expect(described()["struct.html"]).toStartWith("The struct.py module converts");
    expect(described()["history.html"]).toStartWith("Dr. Smith wrote the first draft");
  });

  test("none takes navigation, header or footer text", () => {
    for (const content of Object.values(described())) expect(content).not.toMatch(/Glossary|Copyright|forged by hand/);
  });

  test("each is within description-length's range and no other page's description", () => {
    const all = [
      ...Object.values(described()),
      TAKEN,
      "The harbour's pages: tides, ferries and the history of the old town, written down for visitors.",
    ].map((d) => d.toLowerCase());
    expect(new Set(all).size).toBe(all.length);
    for (const content of Object.values(described())) {
      expect(content.length).toBeGreaterThanOrEqual(50);
      expect(content.length).toBeLessThanOrEqual(160);
    }
  });

  test("a page with too little prose gets none, and the plan's skipped list says why", () => {
    expect(plan.skipped).toContainEqual({
      file: "thin.html",
      action: "add-meta-description",
      reason: expect.stringContaining("too little prose"),
    });
    expect(plan.doc.context.skipped).toEqual(plan.skipped);
  });

  test("after gate review and apply, a re-audit finds no finding the site did not have, and the described pages' meta-description findings are gone", async () => {
    const review = await run(binary("gate"), ["review", "--plan", ws.run, "--json"], { env: ws.env });
    expect(review.json.error).toBeNull();
    const applied = await seo(["apply", "--plan", ws.run]);
    expect(applied.json.data.status).toBe("applied");
    const after = await audit(join(ws.dir, "again"));
    const old = new Set(before.map((f) => f.id));
    expect(after.filter((f) => !old.has(f.id)).map((f) => `${f.rule} ${f.url}: ${f.message}`)).toEqual([]);
    const stillMissing = after.filter((f) => f.rule === "meta-description").map((f) => new URL(f.url).pathname);
    expect(stillMissing).toEqual(["/thin.html"]);
  });
});
