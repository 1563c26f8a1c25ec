/**
 * contract §8: `history.html` and `timeline.html` for a plan, from its action
 * log, through a trusted template. Everything a tool wrote (reasons, ids,
 * targets, actors, details) is escaped, and the page carries a policy that
 * runs no script at all: a hostile string renders as text.
 */
import type { ActionLogRow, Plan } from "../../kit/mutations/index.ts";

const ESCAPES: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};
/** Bidirectional controls (and other invisible format characters) would reorder what a person reads ("gnp.exe" shown as "exe.png"): shown by name instead. */
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
const named = (c: string): string => `\u27e8U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}\u27e9`;
export const esc = (value: unknown): string =>
  String(value ?? "")
    .replace(/[&<>"']/g, (c) => ESCAPES[c]!)
    .replace(BIDI, named);

const iso = (ms: number): string => new Date(ms).toISOString();

// overflow-wrap: a long unbroken word (a title, a URL) wraps inside its card instead of overflowing it.
const STYLE = `body{font:15px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:60rem;color:#1b1f24;padding:0 1rem;overflow-wrap:anywhere}
h1{font-size:1.5rem;margin-bottom:.25rem}.sub{color:#57606a;margin-top:0}code{font:13px ui-monospace,monospace;word-break:break-all}
ol{list-style:none;padding:0}li{border:1px solid #d0d7de;border-left-width:6px;border-radius:6px;padding:.6rem 1rem;margin:.75rem 0}
li.applied,li.reconciled{border-left-color:#1a7f37}li.failed{border-left-color:#cf222e}li.pending{border-left-color:#9a6700}
h2{font-size:1.05rem;margin:.2rem 0}.outcome{font-weight:600;text-transform:uppercase;font-size:.8rem;letter-spacing:.04em}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem;margin:.5rem 0 0}dt{color:#57606a}dd{margin:0}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #d0d7de;padding:.35rem .5rem;text-align:left;vertical-align:top}`;

const page = (title: string, body: string): string =>
  `<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">\n<meta name="viewport" content="width=device-width, initial-scale=1">\n<title>${esc(title)}</title>\n<style>${STYLE}</style>\n</head>\n<body>\n${body}\n</body>\n</html>\n`;

const header = (plan: Plan, what: string): string =>
  `<h1>${esc(what)}: ${esc(plan.tool)} plan <code>${esc(plan.checksum.slice(0, 23))}</code></h1>\n<p class="sub">${plan.items.length} item(s), planned ${esc(plan.created_at)}; approval ${plan.approval_id ? `<code>${esc(plan.approval_id)}</code> (${esc(plan.approval?.mode)}, by ${esc(plan.approval?.approved_by)})` : "none"}; policy ${esc(plan.policy_version ?? "none")}</p>`;

/** One entry per plan item: its outcome and the audit path from plan to approval to ledger key to each log row. */
function entry(plan: Plan, item: Plan["items"][number], rows: readonly ActionLogRow[]): string {
  const last = rows.at(-1);
  const state = last ? last.outcome : "pending";
  const log = rows
    .map((r) => `<dd>${esc(iso(r.at))}: ${esc(r.outcome)}${r.executed ? ", executed" : ""} by ${esc(r.actor)}</dd>`)
    .join("");
  return `<li class="${esc(state)}">
<span class="outcome">${esc(state)}</span>
<h2>${esc(item.id)}: ${esc(item.action)}</h2>
<p>${esc(item.reason)}</p>
<dl><dt>targets</dt><dd>${item.target_resource_ids.map((t) => `<code>${esc(t)}</code>`).join(", ")}</dd>
<dt>audit path</dt><dd>plan <code>${esc(plan.checksum.slice(0, 23))}</code> → approval <code>${esc(plan.approval_id ?? "none")}</code> → key <code>${esc(item.idempotency_key.slice(0, 23))}</code></dd>
<dt>log</dt>${log || "<dd>not applied yet</dd>"}</dl>
</li>`;
}

/** The plan's items as entries, and every log row in time order. */
function planParts(plan: Plan, rows: readonly ActionLogRow[]): { entries: string; timeline: string } {
  const byItem = new Map<string, ActionLogRow[]>();
  for (const r of rows) byItem.set(r.item, [...(byItem.get(r.item) ?? []), r]);
  const entries = `<ol>\n${plan.items.map((it) => entry(plan, it, byItem.get(it.id) ?? [])).join("\n")}\n</ol>`;
  const sorted = [...rows].sort((a, b) => a.at - b.at || a.item.localeCompare(b.item));
  const lines = sorted
    .map(
      (r) =>
        `<tr><td>${esc(iso(r.at))}</td><td><code>${esc(r.item)}</code></td><td>${esc(r.action)}</td><td>${esc(r.outcome)}${r.executed ? ", executed" : ""}</td><td>${esc(r.actor)}</td></tr>`,
    )
    .join("\n");
  const timeline = `<table>\n<tr><th>at</th><th>item</th><th>action</th><th>outcome</th><th>actor</th></tr>\n${lines || '<tr><td colspan="5">nothing applied yet</td></tr>'}\n</table>`;
  return { entries, timeline };
}

export function renderHistory(plan: Plan, rows: readonly ActionLogRow[]): { history: string; timeline: string } {
  const { entries, timeline } = planParts(plan, rows);
  const name = `${plan.tool} plan ${plan.checksum.slice(7, 19)}`;
  return {
    history: page(`History of ${name}`, `${header(plan, "History")}\n${entries}`),
    timeline: page(`Timeline of ${name}`, `${header(plan, "Timeline")}\n${timeline}`),
  };
}

/** What a job's history shows of its report: each step, and how it ended. */
export interface JobSummary {
  readonly job_id: string;
  readonly status: string;
  readonly cancelled: boolean;
  readonly steps: readonly {
    step: number;
    tool: string;
    command: string;
    exit: number;
    ok: boolean;
    duration_ms: number;
  }[];
  readonly errors: readonly { step: number; error: Readonly<Record<string, unknown>> }[];
}

/** A job: its steps, then (when it planned) its plan's entries; the timeline is the plan's action log. */
export function renderJobHistory(
  job: JobSummary,
  plan: Plan | null,
  rows: readonly ActionLogRow[],
): { history: string; timeline: string } {
  const codeOf = (step: number) => job.errors.find((e) => e.step === step)?.error.code;
  const steps = job.steps
    .map(
      (s) =>
        `<tr><td>${s.step}</td><td><code>${esc(s.tool)} ${esc(s.command)}</code></td><td>${s.exit}</td><td>${s.ok ? "ok" : esc(codeOf(s.step) ?? "failed")}</td><td>${s.duration_ms} ms</td></tr>`,
    )
    .join("\n");
  const head = `<h1>History: job <code>${esc(job.job_id)}</code></h1>\n<p class="sub">${esc(job.status)}${job.cancelled ? ", cancelled" : ""}; ${job.steps.length} step(s) ran</p>\n<table>\n<tr><th>step</th><th>command</th><th>exit</th><th>result</th><th>took</th></tr>\n${steps}\n</table>`;
  const parts = plan ? planParts(plan, rows) : null;
  const history = page(
    `History of job ${job.job_id}`,
    `${head}\n${plan && parts ? `${header(plan, "Its plan")}\n${parts.entries}` : ""}`,
  );
  const timeline = page(
    `Timeline of job ${job.job_id}`,
    `<h1>Timeline: job <code>${esc(job.job_id)}</code></h1>\n${parts?.timeline ?? "<p>the job applied no plan</p>"}`,
  );
  return { history, timeline };
}
