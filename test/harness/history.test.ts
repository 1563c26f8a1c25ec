/**
 * history.html and timeline.html, rendered by the compiled harness from a
 * plan's action log on both ledger engines, and looked at in headless
 * Chromium: a screenshot, and hostile strings from the plan that render as
 * text and run nothing.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openLedger } from "../../src/features/ledger/index.ts";
import { buildPlan, writePlanFile } from "../../src/kit/mutations/plan.ts";
import { binary, run } from "../helpers/bin.ts";
import { headless } from "../helpers/chromium.ts";
import { LEDGER_ENGINES } from "../helpers/mutation.ts";
import { SLOW_HOOK } from "../helpers/hooks.ts";

/** The clock the ledger stamps its migrations with. */
const CLOCK = { now: () => Date.now() };

const SCRIPT = "<script>document.body.setAttribute('data-pwned','script')</script>";
const IMG = `"><img src=x onerror="document.body.setAttribute('data-pwned','img')">`;
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) Bun.spawnSync(["rm", "-rf", d]);
}, SLOW_HOOK);

/** A plan with hostile reasons and targets whose first item is in the log (applied, by a hostile actor) and whose second failed. */
async function loggedPlan(
  ledgerUrl: string | undefined,
): Promise<{ dir: string; env: Record<string, string>; checksum: string }> {
  const dir = mkdtempSync(join(tmpdir(), "history-"));
  dirs.push(dir);
  mkdirSync(join(dir, "plan"));
  // Its context is this folder: a plan of its own, whatever the shared PostgreSQL ledger already holds.
  const plan = buildPlan({
    tool: "brain",
    toolVersion: "0.1.0",
    now: Date.parse("2026-01-02T00:00:00Z"),
    ttlSeconds: 86400,
    context: { repo: dir },
    items: [
      {
        action: "create-note",
        reason: `create note ${SCRIPT}`,
        params: { id: "a" },
        preconditions: [{ target: `notes/${IMG}.md`, version: null }],
      },
      {
        action: "update-note",
        reason: `update ${IMG} & <b>bold</b>`,
        params: { id: "b" },
        preconditions: [{ target: "notes/b.md", version: "sha256:0000" }],
      },
    ],
  });
  writePlanFile(join(dir, "plan", "plan.json"), plan);
  const ledger = await openLedger(ledgerUrl, join(dir, "plan", "ledger.sqlite"), CLOCK);
  try {
    for (const [i, it] of plan.items.entries()) {
      const key = it.idempotency_key;
      const at = Date.parse("2026-01-03T10:00:00Z") + i * 60_000;
      const claim = await ledger.claim({
        key,
        fingerprint: "f",
        tool: plan.tool,
        action: it.action,
        plan: plan.checksum,
        item: it.id,
        owner: "golden/1/x",
        leaseMs: 60_000,
        now: at,
      });
      if (claim.kind !== "acquired") throw new Error(`claim: ${claim.kind}`);
      const outcome = i === 0 ? "applied" : "failed";
      const log = {
        at,
        actor: `ada ${IMG}`,
        tool: plan.tool,
        action: it.action,
        plan: plan.checksum,
        item: it.id,
        key,
        outcome,
        executed: true,
        startedAt: at - 500,
        finishedAt: at,
        detail: { note: SCRIPT },
      };
      await ledger.settle(
        { key, owner: "golden/1/x", generation: claim.generation },
        { outcome, result: null, now: at, log },
      );
    }
  } finally {
    await ledger.close();
  }
  return { dir, env: ledgerUrl ? { AGENT_LEDGER_URL: ledgerUrl } : {}, checksum: plan.checksum };
}

for (const [engine, ledgerUrl] of Object.entries(LEDGER_ENGINES))
  describe(`history render from the ${engine} action log`, () => {
    test("one entry per item with its outcome and audit path; the timeline has every row; hostile strings are escaped", async () => {
      const { dir, env, checksum } = await loggedPlan(ledgerUrl());
      const r = await run(
        binary("harness"),
        ["history", "render", "--plan", join(dir, "plan"), "--run-dir", join(dir, "pages"), "--json"],
        { env },
      );
      expect([r.code, r.json.data.items, r.json.data.entries]).toEqual([0, 2, 2]);
      const html = readFileSync(r.json.data.history, "utf8");
      expect(html.match(/<li class="/g)?.length).toBe(2);
      expect(html).toContain('<li class="applied">');
      expect(html).toContain('<li class="failed">');
      expect(html).toContain(
        `audit path</dt><dd>plan <code>${checksum.slice(0, 23)}</code> → approval <code>none</code> → key <code>`,
      );
      expect(html).toContain(
        "&lt;script&gt;document.body.setAttribute(&#39;data-pwned&#39;,&#39;script&#39;)&lt;/script&gt;",
      );
      expect(html).not.toContain("<script");
      expect(html).not.toContain("<img");
      const timeline = readFileSync(r.json.data.timeline, "utf8");
      expect(timeline.match(/<tr><td>2026-01-03T10:0/g)?.length).toBe(2);
    }, 120_000);
  });

describe("in headless Chromium", () => {
  test("the page renders, and nothing a tool wrote runs: the hostile strings are text", async () => {
    const { dir } = await loggedPlan(undefined);
    const r = await run(binary("harness"), [
      "history",
      "render",
      "--plan",
      join(dir, "plan"),
      "--run-dir",
      join(dir, "pages"),
      "--json",
    ]);
    const url = `file://${r.json.data.history}`;
    const dom = headless(url, ["--dump-dom", "--virtual-time-budget=2000"]);
    // Had either string run, Chromium's DOM would show the attribute it sets on <body>.
    expect(dom).toContain("<body>");
    expect(dom).not.toMatch(/<body[^>]*data-pwned/);
    expect(dom).not.toMatch(/<img|<script/);
    expect(dom).toContain("create note &lt;script&gt;document.body.setAttribute('data-pwned','script')&lt;/script&gt;");
    const shot = join(dir, "history.png");
    headless(url, [`--screenshot=${shot}`, "--window-size=1100,900"]);
    expect(statSync(shot).size).toBeGreaterThan(20_000);
    cpSync(shot, join(tmpdir(), "harness-history.png"));
  }, 120_000);
});

describe("what a person reads is what is there", () => {
  const RLO = "\u202e";
  const LONG = `https://harbour.example/${"a".repeat(400)}`;
  async function rendered(): Promise<{ dir: string; html: string; path: string }> {
    const dir = mkdtempSync(join(tmpdir(), "history-bidi-"));
    dirs.push(dir);
    mkdirSync(join(dir, "plan"));
    const plan = buildPlan({
      tool: "brain",
      toolVersion: "0.1.0",
      now: Date.parse("2026-01-02T00:00:00Z"),
      ttlSeconds: 86400,
      context: { repo: dir },
      items: [
        {
          action: "create-note",
          reason: `attach ${RLO}gnp.exe and ${LONG}`,
          params: { id: "a" },
          preconditions: [{ target: `notes/${RLO}gnp.exe.md`, version: null }],
        },
      ],
    });
    writePlanFile(join(dir, "plan", "plan.json"), plan);
    const r = await run(binary("harness"), [
      "history",
      "render",
      "--plan",
      join(dir, "plan"),
      "--run-dir",
      join(dir, "pages"),
      "--json",
    ]);
    expect(r.code).toBe(0);
    return { dir, html: readFileSync(r.json.data.history, "utf8"), path: r.json.data.history };
  }

  test("a right-to-left override is shown by name, never written raw (a title cannot pass gnp.exe off as exe.png)", async () => {
    const { html } = await rendered();
    expect(html).not.toMatch(/[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/);
    expect(html).toContain("attach \u27e8U+202E\u27e9gnp.exe and");
    expect(html).toContain("notes/\u27e8U+202E\u27e9gnp.exe.md");
  });

  test("in headless Chromium, a long unbroken word wraps inside its card: nothing overflows", async () => {
    const { dir, html } = await rendered();
    // The page runs no script (its policy forbids it): a copy without the policy measures it.
    const measure = `<script>const wide = [...document.querySelectorAll("li, li *, h1, table")].filter((e) => e.scrollWidth > e.clientWidth + 1).length; document.body.setAttribute("data-overflowing", String(wide));</script>`;
    const probe = join(dir, "probe.html");
    writeFileSync(
      probe,
      html.replace(/<meta http-equiv="Content-Security-Policy"[^>]*>/, "").replace("</body>", `${measure}</body>`),
    );
    const dom = headless(`file://${probe}`, ["--dump-dom", "--virtual-time-budget=2000", "--window-size=800,900"]);
    expect(dom).toMatch(/<body data-overflowing="0">/);
  }, 120_000);
});
