/**
 * The gate's judgement of seo edits, fuzzed (fast-check, seeded): generated
 * pages (a script's double-escaped state, template literals, CDATA,
 * comments, raw text elements, unclosed attribute quotes, foreign content,
 * stray markup) × each seo action with adversarial params, its edits made
 * either as the action makes them or as a lenient reader of the page would
 * place them. Every case the gate approves must leave what a browser runs
 * as it was (html-fuzz-oracle.ts). Run small in the tests, large in the soak.
 */
import fc from "fast-check";
import { sha256 } from "agent-cli-kit";
import type { PlanItem } from "agent-cli-kit/writes";
import { applyEdits, type Edit } from "./edits.ts";
import type { FixAction } from "./fix-actions.ts";
import { canonicalRemoval } from "./fix-edits.ts";
import { FIXES, fixBeyond } from "./fix-effects.ts";
import { executableFacts } from "./html-fuzz-oracle.ts";
import { indentAt, locate } from "./source.ts";

/** Markup a head element may hide in: text a browser reads otherwise than a lenient parser does. */
const HIDDEN = [
  '<meta charset="utf-8">',
  '<meta name="description" content="The harbour.">',
  '<meta name="viewport" content="width=device-width">',
  '<link rel="canonical" href="https://x.example/*/\'">',
  '<a href="/abuot.html">a</a>',
  "<title>t</title>",
];
const hidden = fc.constantFrom(...HIDDEN);
const WRAPPERS: ((inner: string) => string)[] = [
  (i) => `<script>/*<!--<script></script>${i}*/alert(1)</script>`,
  (i) => `<script>var s = \`<!--<script></script>${i}\n\`; /* --> */</script>`,
  (i) => `<script>var t = \`${i}\`;</script>`,
  (i) => `<![CDATA[ x >${i} ]]>`,
  (i) => `<![CDATA[ x ><div title=' ]]>${i}`,
  (i) => `<!-- ${i} -->`,
  (i) => `<!--${i}`,
  (i) => `<div title='${i}`,
  (i) => `<div title="${i}`,
  (i) => `<style>${i}</style>`,
  (i) => `<textarea>${i}</textarea>`,
  (i) => `<noscript>${i}</noscript>`,
  (i) => `<template>${i}</template>`,
  (i) => `<svg><script>${i}</script></svg>`,
  (i) => `<svg><![CDATA[${i}]]></svg>`,
  (i) => `<math><mi>${i}</mi></math>`,
  (i) => `<table>${i}</table>`,
  (i) => `<select>${i}</select>`,
  (i) => `<xmp>${i}</xmp>`,
  (i) => `<iframe>${i}</iframe>`,
  (i) => i,
];
const STRAY = ["'", '"', "`", ">", "<", "</head>", "<body>", '<html lang="fr">', "<p>", "</script>", "<script>", "-->"];
const piece = fc.oneof(
  { weight: 3, arbitrary: hidden },
  { weight: 5, arbitrary: fc.tuple(fc.nat(WRAPPERS.length - 1), hidden).map(([w, i]) => WRAPPERS[w]!(i)) },
  { weight: 1, arbitrary: fc.constantFrom(...STRAY) },
);
const sentence = fc.constantFrom(
  "The harbour has boats, nets and people who mend them every morning before the tide.",
  "Fishing boats leave at dawn and come back in the evening with the day's catch for the town.",
  'Read the "notes" & <the> history of the harbour\'s old lighthouse, built two hundred years ago.',
);

/** A page: optional doctype and stray prefix, head pieces, body pieces, with or without explicit html/head tags. */
export const pageArb: fc.Arbitrary<string> = fc
  .record({
    doctype: fc.boolean(),
    prefix: fc.array(piece, { maxLength: 1 }),
    explicit: fc.boolean(),
    lang: fc.boolean(),
    head: fc.array(piece, { maxLength: 6 }),
    body: fc.array(
      fc.oneof(
        piece,
        sentence.map((s) => `<p>${s}</p>`),
      ),
      { maxLength: 4 },
    ),
  })
  .map((p) => {
    const head = p.head.map((h) => `  ${h}\n`).join("");
    const body = p.body.map((b) => `  ${b}\n`).join("");
    const open = p.explicit ? `<html${p.lang ? ' lang="en"' : ""}>\n<head>\n` : "";
    const close = p.explicit ? "</head>\n<body>\n" : "";
    return `${p.doctype ? "<!doctype html>\n" : ""}${p.prefix.join("")}${open}${head}${close}${body}${p.explicit ? "</body>\n</html>\n" : ""}`;
  });

const ATTACKS = [
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal ${…}, as an attack writes it into a template literal
  "${alert(document.domain)}",
  "'/tabindex='1'/autofocus/onfocus='alert(document.domain)'/a='/",
  '"onerror="alert(1)',
  "</script><script>alert(1)</script>",
  "--><img src=x onerror=alert(1)>",
  "*/alert(1)/*",
  "`;alert(1);`",
  "&quot;onmouseover=alert(1)",
  "<!--<script>",
  "a b",
];
const attack = fc.constantFrom(...ATTACKS);

/** Each action's params: honest ones and adversarial ones. */
const paramsArb: Record<FixAction, fc.Arbitrary<Record<string, unknown>>> = {
  "set-lang": fc.constantFrom("en", "fr-CA", 'en" onload="alert(1)', "en'x").map((lang) => ({ lang })),
  "add-viewport": fc.constant({}),
  "add-canonical": fc.oneof(fc.constant(""), attack).map((a) => ({ href: `https://x.example/${a}` })),
  "remove-duplicate-canonical": fc.constant({}),
  "add-meta-description": fc.constant({}),
  "fix-broken-link": fc
    .tuple(fc.constantFrom("/abuot.html", "https://x.example/*/'"), fc.oneof(fc.constant("/about.html"), attack))
    .map(([from, to]) => ({ from, to })),
};

/** Escaped as an attribute value once was (no single quote), or not at all. */
const ESCAPES = [
  (s: string) => s.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;"),
  (s: string) => s,
];
const DESCRIPTION = "The harbour has boats, nets and people who mend them every morning before the tide.";

/** An element's line inserted after the `pick`th textual match of `anchor`, as a lenient reader of the page would place it. */
function insertAfter(page: string, anchor: RegExp, pick: number, line: string): Edit[] | null {
  const found = [...page.matchAll(anchor)];
  const m = found[pick % Math.max(1, found.length)];
  if (!m) return null;
  const head = m[0].toLowerCase().startsWith("<head");
  return [{ at: m.index + m[0].length, remove: "", insert: `\n${indentAt(page, m.index)}${head ? "  " : ""}${line}` }];
}

/** The edits a lenient reader of the page makes for `action`: markup found by its text, wherever it sits. */
function lenientEdits(
  action: FixAction,
  page: string,
  p: Record<string, unknown>,
  pick: number,
  esc: number,
): Edit[] | null {
  const e = ESCAPES[esc % ESCAPES.length]!;
  switch (action) {
    case "set-lang": {
      const at = [...page.matchAll(/<html\b/gi)][0];
      return at ? [{ at: at.index + 5, remove: "", insert: ` lang="${e(String(p.lang))}"` }] : null;
    }
    case "add-viewport":
      return insertAfter(
        page,
        /<meta charset[^>]*>|<head>/gi,
        pick,
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
      );
    case "add-canonical":
      return insertAfter(
        page,
        /<meta (name="(description|viewport)"|charset)[^>]*>/gi,
        pick,
        `<link rel="canonical" href="${e(String(p.href))}">`,
      );
    case "add-meta-description":
      return insertAfter(
        page,
        /<\/title>|<meta charset[^>]*>/gi,
        pick,
        `<meta name="description" content="${e(DESCRIPTION)}">`,
      );
    case "remove-duplicate-canonical": {
      const found = [...page.matchAll(/<link rel="canonical"[^>]*>/g)];
      const m = found[pick % Math.max(1, found.length)];
      if (!m) return null;
      const lineStart = page.lastIndexOf("\n", m.index - 1);
      const start = /^[ \t]*$/.test(page.slice(lineStart + 1, m.index)) && lineStart >= 0 ? lineStart : m.index;
      return [{ at: start, remove: page.slice(start, m.index + m[0].length), insert: "" }];
    }
    case "fix-broken-link": {
      const needle = `href="${p.from}"`;
      const edits = [...page.matchAll(new RegExp(needle.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&"), "g"))].map((m) => ({
        at: m.index + 'href="'.length,
        remove: String(p.from),
        insert: String(p.to),
      }));
      return edits.length ? edits : null;
    }
  }
}

/** The edits the action makes on the page, as the planner asks for them (duplicates: every canonical but the first). */
function actionEdits(action: FixAction, page: string, params: Record<string, unknown>): Edit[] | null | string {
  const at = locate(page);
  if (action !== "remove-duplicate-canonical") return FIXES[action].edits(page, at, params);
  return at.canonicals.length > 1 ? at.canonicals.slice(1).map((c) => canonicalRemoval(page, c)) : null;
}

export interface FuzzCase {
  page: string;
  action: FixAction;
  params: Record<string, unknown>;
  edits: Edit[];
}

/** A page × an action with its params × its edits (as the action makes them, or as a lenient reader places them). */
export const caseArb: fc.Arbitrary<FuzzCase | null> = fc
  .tuple(pageArb, fc.constantFrom(...(Object.keys(paramsArb) as FixAction[])), fc.boolean(), fc.nat(5), fc.nat(1))
  .chain(([page, action, honest, pick, esc]) =>
    paramsArb[action].map((params) => {
      const made = honest ? actionEdits(action, page, params) : lenientEdits(action, page, params, pick, esc);
      return Array.isArray(made) && made.length > 0 ? { page, action, params, edits: made } : null;
    }),
  );

/** The gate's judgement of the case (true: approved), and whether the approved page runs or loads anything new. */
export function judgeCase(c: FuzzCase): { approved: boolean; escaped: boolean } {
  const after = applyEdits(c.page, c.edits);
  if (typeof after !== "string") return { approved: false, escaped: false };
  const params = { file: "page.html", ...c.params, edits: c.edits, sha256_after: sha256(after) };
  const item = {
    id: "it-fuzz",
    action: c.action,
    params,
    target_resource_ids: ["page.html"],
    preconditions: [{ target: "page.html", version: sha256(c.page) }],
  } as unknown as PlanItem;
  const approved = fixBeyond(c.action, item, c.page).length === 0;
  const escaped = approved && JSON.stringify(executableFacts(c.page)) !== JSON.stringify(executableFacts(after));
  return { approved, escaped };
}

export interface FuzzRun {
  cases: number;
  approved: number;
  escapes: FuzzCase[];
}

/** `runs` generated page × edit cases from `seed`: how many, how many the gate approved, and each escape. */
export function runHtmlFuzz(runs: number, seed: number): FuzzRun {
  const out: FuzzRun = { cases: 0, approved: 0, escapes: [] };
  for (const c of fc.sample(
    caseArb.filter((x) => x !== null),
    { numRuns: runs, seed },
  ) as FuzzCase[]) {
    const r = judgeCase(c);
    out.cases++;
    if (r.approved) out.approved++;
    if (r.escaped) out.escapes.push(c);
  }
  return out;
}
