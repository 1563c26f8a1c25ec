import * as z from "agent-cli-kit/schema";
import { defineCommand, describe, KitError, nearest } from "agent-cli-kit";
import type { AuditData, ExtractData } from "../lib/artifacts.ts";
import { finding } from "../lib/schemas.ts";
import { extractedPage } from "../lib/page-schema.ts";

export default defineCommand({
  resource: "page",
  verb: "get",
  tier: 1,
  rw: "read",
  summary: "Get one page's extracted signals and its findings.",
  flags: z.object({ url: describe(z.string(), "The page's URL, as `page list` shows it.") }),
  result: z.object({
    page: extractedPage,
    findings: describe(z.nullable(z.array(finding)), "Null when the site has not been audited yet."),
  }),
  schema: "seo.page.get@1",
  errors: ["MISSING_ARTIFACT", "INVALID_ARTIFACT", "NOT_FOUND"],
  examples: [
    { argv: ["--run-dir", "./run", "--url", "https://example.com/about"], summary: "Everything known about /about." },
  ],
  async run(ctx) {
    const site = ctx.runDir.read<ExtractData>("extract").data;
    const wanted = ctx.flags.url;
    const { findPage, listedPages } = await import("../lib/page-index.ts");
    const page = findPage(ctx.runDir.path, site, (p) => p.url === wanted || p.final_url === wanted);
    if (!page) {
      const guess = nearest(
        wanted,
        Iterator.from(listedPages(ctx.runDir.path, site))
          .map((p) => p.url)
          .toArray(),
      );
      throw new KitError("NOT_FOUND", `no crawled page has the URL ${wanted}`, {
        got: wanted,
        hint: guess ? `did you mean ${guess}? \`seo page list\` shows every URL` : "`seo page list` shows every URL",
      });
    }
    const audited = ctx.runDir.readIfPresent<AuditData>("audit");
    // An extract written before seo recorded encodings has none.
    return {
      page: { ...page, encoding: page.encoding ?? null, size: page.size ?? null, cut: page.cut ?? false },
      findings: audited ? await findingsOf(ctx.runDir.path, audited.data, page.url) : null,
    };
  },
});

async function findingsOf(dir: string, audited: AuditData, url: string) {
  const { readFindings } = await import("../lib/findings.ts");
  return readFindings(dir, audited)
    .filter((f) => f.url === url)
    .toArray();
}
