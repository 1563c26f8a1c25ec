/** gate: approves plans, by standing policy or by a person's explicit call. */
import { defineTool } from "agent-cli-kit";
import approve from "./commands/approve.ts";
import init from "./commands/init.ts";
import review from "./commands/review.ts";
import spec from "./spec.yaml";

export default defineTool({
  name: spec.name,
  version: spec.version,
  contractVersion: spec.contract_version,
  purpose: spec.purpose,
  commands: [review, approve, init],
});
