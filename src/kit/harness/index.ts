/** contract §0 and §11, the harness seam: a job's CLI envelopes folded into one signed, validated report, its artifacts routed by type. */
export {
  ARTIFACT_TYPES,
  routeArtifacts,
  storageOf,
  STORAGE_ENV,
  type ArtifactRef,
  type ArtifactType,
} from "./artifacts.ts";
export { deliver, retryAfterMs, type Delivered } from "./deliver.ts";
export { foldJob, type JobReport, type Remedy, type StepEnvelope, type StepRecord, type StepRun } from "./fold.ts";
export { deliverSecrets, issuedSecrets, SECRETS_EVENT, type IssuedSecret } from "./secrets.ts";
export { esc, renderHistory, renderJobHistory, type JobSummary } from "./history.ts";
export { envelopeOf } from "./envelope.ts";
export { endGroup, groupMembers, runInGroup } from "../base/index.ts";
export { ingest, REPORT_SCHEMA, SchemaRegistry, type Verdict } from "./ingest.ts";
export { eventIdOf, parseJob, STEP_TOOLS, type Job, type JobStep } from "./job.ts";
export { createReceiver, internalAnswer, type ReceiverEvent, type ReceiverOptions } from "./receiver.ts";
export { checkSignature, DEFAULT_WINDOW_SECONDS, HEADERS, signedHeaders, type Refusal } from "./sign.ts";
export { runSteps, stepArgv } from "./steps.ts";
export { openEventStore, type EventStore, type StoredEvent } from "./store.ts";
// What the harness's own commands read beside the seam: the action log, a plan, the fleet's binaries.
export { LEDGER_ENV } from "../mutations/ledger/open.ts";
export { actionLog } from "../mutations/read-commands.ts";
export { readPlanFile, resolvePlanPath } from "../mutations/plan.ts";
export { fleetTool, selfArgv } from "../runtime/multicall.ts";
export type { DescribeDoc } from "../introspection/describe-doc.ts";
