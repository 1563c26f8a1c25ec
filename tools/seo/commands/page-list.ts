import * as z from "agent-cli-kit/schema";
import { defineCommand, describe } from "agent-cli-kit";
import type { AuditData, ExtractData } from "../lib/artifacts.ts";

const pageRow = z.object({
  url: z.string(),
  status: z.number(),
  title: z.nullable(z.string()),
  depth: z.number(),
  word_count: z.number(),
  findings: describe(z.nullable(z.number()), "Findings on this page; null when the site has not been audited yet."),
});

export default defineCommand({
  resource: "page",
  verb: "list",
  tier: 1,
  rw: "read",
  summary: "List the crawled pages with status, title and finding count.",
  flags: z.object({
    status: z.optional(
      describe(z.enum(["2xx", "3xx", "4xx", "5xx", "failed"]), "Only pages whose status is in this class."),
    ),
    query: z.optional(describe(z.string(), "Only pages whose URL or title contains this text (case-insensitive).")),
  }),
  result: z.object({ items: z.array(pageRow) }),
  schema: "seo.page.list@1",
  errors: ["MISSING_ARTIFACT", "INVALID_ARTIFACT"],
  examples: [{ argv: ["--run-dir", "./run", "--status", "4xx"], summary: "Pages that answer a client error." }],
  async run(ctx) {
    const site = ctx.runDir.read<ExtractData>("extract").data;
    const audited = ctx.runDir.readIfPresent<AuditData>("audit");
    const q = ctx.flags.query?.toLowerCase();
    const cls = ctx.flags.status;
    const { listedPages } = await import("../lib/page-index.ts");
    const { offset, limit } = ctx.page!;
    // Only the page of rows asked for is held: a big site's list is never held whole.
    const rows: Row[] = [];
    let total = 0;
    for (const p of listedPages(ctx.runDir.path, site)) {
      if (cls && (cls === "failed" ? p.status !== 0 : Math.floor(p.status / 100) !== Number(cls[0]))) continue;
      if (q && !p.url.toLowerCase().includes(q) && !(p.title ?? "").toLowerCase().includes(q)) continue;
      if (total++ < offset || rows.length >= limit) continue;
      const { url, status, title, depth, word_count } = p;
      rows.push({ url, status, title, depth, word_count, findings: audited ? 0 : null });
    }
    if (audited) await countFindings(ctx.runDir.path, audited.data, rows);
    ctx.setOutcome({ realized: total });
    return { items: ctx.paginate({ total, items: rows }, "pages") };
  },
});

type Row = z.output<typeof pageRow>;

/** Each row's findings, counted in one pass over the audit's. */
async function countFindings(dir: string, audited: AuditData, rows: Row[]): Promise<void> {
  const { readFindings } = await import("../lib/findings.ts");
  const byUrl = new Map(rows.map((r) => [r.url, r]));
  for (const f of readFindings(dir, audited)) {
    const row = byUrl.get(f.url);
    if (row) row.findings = (row.findings ?? 0) + 1;
  }
}
