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
export { endGroup, groupMembers, runInGroup } from "../../kit/base/index.ts";
export { ingest, REPORT_SCHEMA, SchemaRegistry, type Verdict } from "./ingest.ts";
export { eventIdOf, parseJob, type Job, type JobStep } from "./job.ts";
export { refuseOwnSecrets } from "./own-secrets.ts";
export { createReceiver, internalAnswer, type ReceiverEvent, type ReceiverOptions } from "./receiver.ts";
export { checkSignature, DEFAULT_WINDOW_SECONDS, HEADERS, signedHeaders, type Refusal } from "./sign.ts";
export { runSteps, stepArgv } from "./steps.ts";
export { openEventStore, type EventStore, type StoredEvent } from "./store.ts";
// What the harness's own commands read beside the seam: the fleet's tools and how to start them, their describe documents.
export { fleetTool, fleetTools, selfArgv } from "../../kit/runtime/index.ts";
export type { DescribeDoc } from "../../kit/introspection/index.ts";
