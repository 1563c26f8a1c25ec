/**
 * An seo edit is judged on the page a browser builds, not on what a lenient
 * parser reads: pages whose markup a browser reads differently (a script's
 * double-escaped state, `<![CDATA[` outside foreign content) and params that
 * close an attribute early. Each case runs the compiled binaries the way a
 * person's pipeline does (seo plan, gate review, seo apply) and then reads
 * the page with parse5, a WHATWG-conformant parser: no script's text changed
 * and no element gained an event handler.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "parse5";
import type { Edit } from "../../tools/seo/lib/edits.ts";
import { binary, run } from "../helpers/bin.ts";
import { forgeItem } from "../helpers/forge.ts";
import { SLOW_HOOK } from "../helpers/hooks.ts";
import { APPROVER, gateKeys, writePolicy } from "../helpers/mutation.ts";

const made: string[] = [];
afterAll(() => {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
}, SLOW_HOOK);

interface Site {
  site: string;
  run: string;
  seo(args: string[]): Promise<{ code: number; json: any }>;
  gate(args: string[]): Promise<{ code: number; json: any }>;
  page(file: string): string;
}

/** A folder of `pages`, crawled at `baseUrl`, extracted and audited; keys and a policy auto-approving every seo action. */
async function auditedSite(pages: Record<string, string>, baseUrl = "https://x.example/"): Promise<Site> {
  const dir = mkdtempSync(join(tmpdir(), "html-escape-"));
  made.push(dir);
  const site = join(dir, "site");
  mkdirSync(site);
  for (const [file, html] of Object.entries(pages)) writeFileSync(join(site, file), html);
  const keys = gateKeys();
  const env = {
    AGENT_GATE_PRIVATE_KEY: keys.privateKey,
    AGENT_GATE_PUBLIC_KEY: keys.publicKey,
    AGENT_POLICY_FILE: writePolicy(dir),
    AGENT_APPROVER_KEY: APPROVER.privateKey,
  };
  const runDir = join(dir, "run");
  const call = (bin: string) => (args: string[]) => run(binary(bin), [...args, "--json"], { env, timeoutMs: 60_000 });
  const s: Site = {
    site,
    run: runDir,
    seo: call("seo"),
    gate: call("gate"),
    page: (file) => readFileSync(join(site, file), "utf8"),
  };
  for (const stage of [["crawl", "--dir", site, "--base-url", baseUrl], ["extract"], ["audit"]]) {
    const r = await s.seo([...stage, "--run-dir", runDir]);
    if (r.code !== 0) throw new Error(`seo ${stage[0]} failed: ${JSON.stringify(r.json)}`);
  }
  return s;
}

const planOf = (s: Site) => JSON.parse(readFileSync(join(s.run, "plan.json"), "utf8"));

const forge = (s: Site, file: string, action: string, params: Record<string, unknown>, edits: Edit[]) =>
  forgeItem(s.run, s.site, file, action, params, edits);

/** What a browser would run or load on the page: every script's text, every handler, every executable element. */
function executable(html: string): string[] {
  const out: string[] = [];
  const walk = (n: any, path: string) => {
    for (const [i, c] of (n.childNodes ?? []).entries()) {
      if (!c.tagName) continue;
      const here = `${path}/${c.tagName}[${i}]`;
      if (c.tagName === "script")
        out.push(`${here} script ${JSON.stringify(c.childNodes.map((t: any) => t.value).join(""))}`);
      for (const a of c.attrs) if (/^on/i.test(a.name)) out.push(`${here} ${a.name}=${a.value}`);
      walk(c.tagName === "template" ? c.content : c, here);
    }
  };
  walk(parse(html), "");
  return out;
}

/** seo plan, gate review, seo apply, as a pipeline runs them: what review and apply answered. */
async function pipeline(s: Site, plan = true): Promise<{ review: number; apply: number; reviewError?: string }> {
  if (plan) expect((await s.seo(["plan", "--run-dir", s.run])).code).toBe(0);
  const review = await s.gate(["review", "--plan", s.run]);
  const apply = review.code === 0 ? (await s.seo(["apply", "--plan", s.run])).code : -1;
  return { review: review.code, apply, reviewError: review.json.error?.message };
}

const head = (extra: string) => `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>A page of the harbour</title>
  <meta name="description" content="A page of the harbour, its boats and its people, told in a few sentences.">
${extra}
</head>
<body>
  <h1>The harbour</h1>
  <p>The harbour has boats, nets and people who mend them every morning before the tide.</p>
</body>
</html>
`;

/** A canonical, and one a lenient parser reads after a script that a browser reads as that script's text. */
const SCRIPTED = head(`  <link rel="canonical" href="https://x.example/">
  <script>/*<!--<script></script><link rel="canonical" href="https://x.example/*/'">*/alert(document.domain)</script>`);

describe("escapes through a browser's parse, each run through plan, review and apply", () => {
  test("escape 1: seo's own plan no longer removes a 'duplicate canonical' that sits inside a double-escaped script", async () => {
    const s = await auditedSite({ "index.html": SCRIPTED });
    const r = await pipeline(s);
    console.log(`escape 1: review exit ${r.review}, apply exit ${r.apply}`);
    expect(executable(s.page("index.html"))).toEqual(executable(SCRIPTED));
    expect(planOf(s).items.filter((i: any) => i.action === "remove-duplicate-canonical")).toEqual([]);
  });

  test("escape 1, forged: a removal of the canonical inside the script is refused by the gate (PLAN_INVALID)", async () => {
    const page = SCRIPTED;
    const s = await auditedSite({ "index.html": page });
    expect((await s.seo(["plan", "--run-dir", s.run])).code).toBe(0);
    const tag = `<link rel="canonical" href="https://x.example/*/'">`;
    forge(s, "index.html", "remove-duplicate-canonical", {}, [{ at: page.indexOf(tag), remove: tag, insert: "" }]);
    const r = await pipeline(s, false);
    console.log(`escape 1 forged: ${r.reviewError}`);
    expect(r.review).toBe(3);
    expect(executable(s.page("index.html"))).toEqual(executable(page));
  });

  test("escape 2: a page opening with <![CDATA[ and a --base-url full of quotes give no element an onfocus handler", async () => {
    // A browser reads all that follows <div title=' as that attribute's value, up to the comment's quote.
    const page = `<![CDATA[ x ><div title=' ]]>\n${head("")}<!-- ' -->\n`;
    const base = "https://x.example/'/tabindex='1'/autofocus/onfocus='alert(document.domain)'/a='/";
    const s = await auditedSite({ "index.html": page }, base);
    const r = await pipeline(s);
    console.log(
      `escape 2: review exit ${r.review}, apply exit ${r.apply}; page now ${JSON.stringify(s.page("index.html").slice(0, 400))}`,
    );
    expect(executable(s.page("index.html"))).toEqual(executable(page));
  });

  // biome-ignore lint/suspicious/noTemplateCurlyInString: the title names the attack's literal ${…}
  test("escape 3: an add-canonical href of ${alert(document.domain)} landing inside a double-escaped script's template literal is refused", async () => {
    const page = `<!doctype html>
<html lang="en">
<head>
  <title>A page of the harbour</title>
  <script>var s = \`<!--<script></script><meta charset="utf-8">
\`; /* --> */</script>
</head>
<body><p>The harbour has boats, nets and people who mend them every morning before the tide.</p></body>
</html>
`;
    const s = await auditedSite({ "index.html": page });
    expect((await s.seo(["plan", "--run-dir", s.run])).code).toBe(0);
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the href carries a literal ${…}, as the attack writes it
    const href = "https://x.example/${alert(document.domain)}";
    const at = page.indexOf(`<meta charset="utf-8">`) + `<meta charset="utf-8">`.length;
    forge(s, "index.html", "add-canonical", { href }, [
      { at, remove: "", insert: `\n  <link rel="canonical" href="${href}">` },
    ]);
    const r = await pipeline(s, false);
    console.log(`escape 3: ${r.reviewError}`);
    expect(r.review).toBe(3);
    expect(executable(s.page("index.html"))).toEqual(executable(page));
  });

  test("handlers need no whitespace before them: add-canonical hrefs with \"onerror= and '/onfocus= are refused", async () => {
    const page = head("");
    for (const href of [`https://x.example/"onerror="alert(1)`, `https://x.example/'/onfocus='alert(1)'/`]) {
      const s = await auditedSite({ "index.html": page });
      expect((await s.seo(["plan", "--run-dir", s.run])).code).toBe(0);
      // Where add-canonical writes it (after the description), escaped as it was: what the gate recomputes.
      const description = page.indexOf('<meta name="description"');
      const at = page.indexOf(">", description) + 1;
      const attr = href.replace(/&/g, "&amp;").replace(/"/g, "&quot;");
      forge(s, "index.html", "add-canonical", { href }, [
        { at, remove: "", insert: `\n  <link rel="canonical" href="${attr}">` },
      ]);
      const r = await pipeline(s, false);
      expect([href, r.review]).toEqual([href, 3]);
      expect(r.reviewError).toContain("an event-handler attribute");
    }
  });
});
