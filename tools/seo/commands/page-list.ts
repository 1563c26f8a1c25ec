import * as z from "agent-cli-kit/schema";
import { defineCommand, describe, type RunDir } from "agent-cli-kit";
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
    const counts = auditCounts(ctx.runDir);
    const q = ctx.flags.query?.toLowerCase();
    const cls = ctx.flags.status;
    const { readPages } = await import("../lib/page-store.ts");
    // Rows are small (no links, no text): a big site's list is held as rows, never as pages.
    const rows = readPages(ctx.runDir.path, "extract", site)
      .filter((p) => !cls || (cls === "failed" ? p.status === 0 : Math.floor(p.status / 100) === Number(cls[0])))
      .filter((p) => !q || p.url.toLowerCase().includes(q) || (p.title ?? "").toLowerCase().includes(q))
      .map((p) => ({
        url: p.url,
        status: p.status,
        title: p.title,
        depth: p.depth,
        word_count: p.word_count,
        findings: counts ? (counts.get(p.url) ?? 0) : null,
      }))
      .toArray();
    ctx.setOutcome({ realized: rows.length });
    return { items: ctx.paginate(rows, "pages") };
  },
});

/** Findings per page, if the site has been audited. */
function auditCounts(runDir: RunDir): Map<string, number> | null {
  const audited = runDir.readIfPresent<AuditData>("audit");
  if (!audited) return null;
  const counts = new Map<string, number>();
  for (const f of audited.data.findings) counts.set(f.url, (counts.get(f.url) ?? 0) + 1);
  return counts;
}
