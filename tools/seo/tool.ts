/** seo: a site auditor. A table of contents of its commands; the kit does the rest. */
import { defineTool } from "agent-cli-kit";
import audit from "./commands/audit.ts";
import crawl from "./commands/crawl.ts";
import extract from "./commands/extract.ts";
import findingGet from "./commands/finding-get.ts";
import findingList from "./commands/finding-list.ts";
import pageGet from "./commands/page-get.ts";
import pageList from "./commands/page-list.ts";
import plan from "./commands/plan.ts";
import score from "./commands/score.ts";
import synthesize from "./commands/synthesize.ts";
import mutations from "./commands/mutations.ts";
import spec from "./spec.yaml";

export default defineTool({
  name: spec.name,
  version: spec.version,
  contractVersion: spec.contract_version,
  purpose: spec.purpose,
  commands: [crawl, extract, audit, score, synthesize, plan, ...mutations, pageList, pageGet, findingList, findingGet],
});
