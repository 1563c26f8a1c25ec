/**
 * seo's plan over a real manual nobody here wrote: the PostgreSQL 15 manual
 * (Debian's postgresql-doc-15, 1,169 pages), crawled as a folder. Every
 * planned meta description starts where a sentence of the page's main text
 * starts (judged here from the page's own HTML, not by seo's splitter), and
 * plan → gate review → apply → re-audit introduces no new finding.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Parser } from "htmlparser2";
import { binary, run } from "../helpers/bin.ts";
import { SLOW_HOOK } from "../helpers/hooks.ts";
import { APPROVER, gateKeys, writePolicy } from "../helpers/mutation.ts";

const MANUAL = "/usr/share/doc/postgresql-doc-15/html";
const BASE = "https://www.postgresql.org/docs/15/";
const installed = existsSync(MANUAL);

/** The text of each <p> outside the manual's navigation (its navheader and navfooter), whitespace-collapsed. */
function mainParagraphs(html: string): string[] {
  const out: string[] = [];
  const stack: boolean[] = [];
  let depth = 0;
  let text = "";
  const parser = new Parser(
    {
      onopentag(name, attrs) {
        stack.push((stack.at(-1) ?? false) || /\bnav(header|footer)\b/.test(attrs.class ?? ""));
        if (name === "p") depth++;
      },
      ontext(t) {
        if (depth > 0 && !stack.at(-1)) text += t;
      },
      onclosetag(name) {
        stack.pop();
        if (name !== "p" || depth === 0 || --depth > 0) return;
        const clean = text.replace(/\s+/g, " ").trim();
        if (clean) out.push(clean);
        text = "";
      },
    },
    { decodeEntities: true, lowerCaseTags: true },
  );
  parser.end(html);
  return out;
}

/** Words after which a stop does not end a sentence. */
const ABBREVIATIONS = /(^|[\s(])(e\.g|i\.e|etc|vs|cf|approx|incl|dr|mr|mrs|ms|prof|st|no|fig|eq|vol|pp|[a-z])\.$/i;

/**
 * Whether `at` in `paragraph` is where a sentence starts: the paragraph's
 * start (not a list number "5. "), or after a stop and a space, not after an
 * abbreviation or an initial, at a capital, a digit or an opening mark.
 */
function sentenceStartAt(paragraph: string, at: number): boolean {
  if (at === 0) return !/^\d+[.)]\s/.test(paragraph);
  const before = paragraph.slice(0, at);
  if (!/[.!?]["')\]’”]*\s+$/.test(before)) return false;
  if (ABBREVIATIONS.test(before.trimEnd().replace(/["')\]’”]+$/, ""))) return false;
  return /^[\p{Lu}\p{N}"'“‘(]/u.test(paragraph.slice(at));
}

/** Where a description starts in the page's main text: "start", "mid-sentence" (with what precedes it), or "absent". */
function whereItStarts(description: string, paragraphs: string[]): string {
  const text = description.endsWith("…") ? description.slice(0, -1) : description;
  let found = "absent";
  for (const p of paragraphs)
    for (let at = p.indexOf(text); at !== -1; at = p.indexOf(text, at + 1)) {
      if (sentenceStartAt(p, at)) return "start";
      found = `mid-sentence, after '${p.slice(Math.max(0, at - 30), at)}'`;
    }
  return found;
}

/** An attribute value as written back to text: seo escapes both quotes (`&#39;` too), `<`, `>` and `&`. */
const attrText = (s: string) =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&#(\d+);/g, (_, n) => String.fromCodePoint(Number(n)))
    .replace(/&#x([0-9a-f]+);/gi, (_, n) => String.fromCodePoint(Number.parseInt(n, 16)))
    .replace(/&amp;/g, "&");

let ws: { dir: string; site: string; env: Record<string, string> };
// Each stage over 1,169 pages; the gate and apply judge every item on two browser parses of its page. Beside the
// rest of the suite on two cores, review and apply together have taken over six minutes.
const RUN_MS = 900_000;
const seo = (args: string[]) => run(binary("seo"), [...args, "--json"], { env: ws.env, timeoutMs: RUN_MS });

/** Every finding of a fresh audit of the folder, from the findings file audit.json names. */
async function audit(runDir: string): Promise<{ id: string; rule: string; url: string; message: string }[]> {
  for (const stage of [
    ["crawl", "--dir", ws.site, "--base-url", BASE, "--max-pages", "5000", "--max-depth", "50"],
    ["extract"],
    ["audit"],
  ])
    expect((await seo([...stage, "--run-dir", runDir])).json.error).toBeNull();
  const audited = JSON.parse(readFileSync(join(runDir, "audit.json"), "utf8")).data;
  // An older seo holds its findings inline.
  if (audited.findings) return audited.findings;
  return readFileSync(join(runDir, audited.findings_file.file), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

let before: Awaited<ReturnType<typeof audit>> = [];
let plan: any;
beforeAll(async () => {
  if (!installed) return;
  const dir = mkdtempSync(join(tmpdir(), "seo-manual-"));
  const site = join(dir, "site");
  cpSync(MANUAL, site, { recursive: true });
  const keys = gateKeys();
  ws = {
    dir,
    site,
    env: {
      AGENT_GATE_PRIVATE_KEY: keys.privateKey,
      AGENT_GATE_PUBLIC_KEY: keys.publicKey,
      AGENT_POLICY_FILE: writePolicy(dir, "p1", {}, 20_000),
      AGENT_APPROVER_KEY: APPROVER.privateKey,
    },
  };
  before = await audit(join(dir, "run"));
  const planned = await seo(["plan", "--run-dir", join(dir, "run")]);
  expect(planned.json.error).toBeNull();
  plan = JSON.parse(readFileSync(join(dir, "run", "plan.json"), "utf8"));
}, SLOW_HOOK);
afterAll(() => {
  if (installed) rmSync(ws.dir, { recursive: true, force: true });
}, SLOW_HOOK);

describe("a plan over the PostgreSQL 15 manual", () => {
  test("every planned description starts at a sentence start of its page's main text: none mid-sentence", () => {
    if (!installed) return console.log(`${MANUAL} is not installed (apt-get install postgresql-doc-15): skipped`);
    const described = plan.items.filter((i: any) => i.action === "add-meta-description");
    expect(described.length).toBeGreaterThan(1000);
    const wrong: string[] = [];
    for (const item of described) {
      const inserted = /content="([^"]*)"/.exec(item.params.edits.map((e: any) => e.insert).join(""))![1]!;
      const description = attrText(inserted);
      const where = whereItStarts(description, mainParagraphs(readFileSync(join(MANUAL, item.params.file), "utf8")));
      if (where !== "start") wrong.push(`${item.params.file}: ${where}: ${description.slice(0, 60)}`);
    }
    expect(wrong).toEqual([]);
  });

  test("after gate review and apply, a re-audit finds no finding the manual did not have", async () => {
    if (!installed) return console.log(`${MANUAL} is not installed (apt-get install postgresql-doc-15): skipped`);
    const review = await run(binary("gate"), ["review", "--plan", join(ws.dir, "run"), "--json"], {
      env: ws.env,
      timeoutMs: RUN_MS,
    });
    expect(review.json.error).toBeNull();
    const applied = await seo(["apply", "--plan", join(ws.dir, "run")]);
    expect(applied.json.data.status).toBe("applied");
    const after = await audit(join(ws.dir, "again"));
    const old = new Set(before.map((f) => f.id));
    expect(after.filter((f) => !old.has(f.id)).map((f) => `${f.rule} ${f.url}: ${f.message}`)).toEqual([]);
    // What the plan fixed is gone: fewer findings than before.
    expect(after.length).toBeLessThan(before.length);
  }, 1_800_000);
});
