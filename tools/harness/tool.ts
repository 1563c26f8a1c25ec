/** harness: the seam between a job and the fleet's CLIs (contract §0, §11, §12). */
import { defineTool } from "agent-cli-kit";
import historyRender from "./commands/history-render.ts";
import jobExecute from "./commands/job-execute.ts";
import receive from "./commands/receive.ts";
import reportDeliver from "./commands/report-deliver.ts";
import spec from "./spec.yaml";

export default defineTool({
  name: spec.name,
  version: spec.version,
  contractVersion: spec.contract_version,
  purpose: spec.purpose,
  commands: [jobExecute, reportDeliver, receive, historyRender],
});
