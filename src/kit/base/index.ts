/**
 * contract §1's verb table, the documents a binary carries, node:fs loaded on first use, a child run as a process
 * group of its own, and how progress crosses to a door: what every
 * layer of the kit may import. It imports no other kit folder, so nothing here can lean on a layer above it.
 */
export { DOCUMENT_FLAGS, type DocumentFlag, HELP_DOCUMENT } from "./documents.ts";
export { fs } from "./node-fs.ts";
export {
  canonicalVerbFor,
  FORBIDDEN_SYNONYMS,
  isForbiddenVerb,
  isTier1Verb,
  TIER1_VERBS,
  type Tier1Verb,
} from "./verbs.ts";
export { endGroup, type GroupOptions, type GroupRun, groupMembers, runInGroup } from "./process-group.ts";
export { PROGRESS_ENV, PROGRESS_PREFIX, type ProgressReport, progressOf } from "./progress-lines.ts";
