/**
 * contract §1's verb table, and node:fs loaded on first use: what every layer of the kit may import. It imports no other
 * kit folder, so nothing here can lean on a layer above it.
 */
export { fs } from "./node-fs.ts";
export {
  canonicalVerbFor,
  FORBIDDEN_SYNONYMS,
  isForbiddenVerb,
  isTier1Verb,
  TIER1_VERBS,
  type Tier1Verb,
} from "./verbs.ts";
