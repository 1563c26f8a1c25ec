/** contract §1: the closed tier-1 verb set, and the synonyms that are never verbs. */

export const TIER1_VERBS = ["get", "list", "create", "update", "delete", "plan", "apply"] as const;
export type Tier1Verb = (typeof TIER1_VERBS)[number];

export const isTier1Verb = (v: string): v is Tier1Verb => (TIER1_VERBS as readonly string[]).includes(v);

/** contract §1: forbidden always; each answered with the canonical verb an agent meant. */
export const FORBIDDEN_SYNONYMS: Readonly<Record<string, Tier1Verb>> = {
  ls: "list",
  show: "get",
  info: "get",
  fetch: "get",
  rm: "delete",
  new: "create",
  make: "create",
  run: "apply",
};

/** Other words agents reach for; not forbidden by the contract, but worth a pointed hint. */
const COMMON_SYNONYMS: Readonly<Record<string, Tier1Verb>> = {
  view: "get",
  read: "get",
  cat: "get",
  describe: "get",
  find: "list",
  all: "list",
  add: "create",
  insert: "create",
  edit: "update",
  set: "update",
  modify: "update",
  remove: "delete",
  del: "delete",
  execute: "apply",
  exec: "apply",
  commit: "apply",
};

export const isForbiddenVerb = (v: string): boolean => Object.hasOwn(FORBIDDEN_SYNONYMS, v);

/** The canonical verb a word stands for, if it is a known synonym. */
export const canonicalVerbFor = (word: string): Tier1Verb | undefined =>
  Object.hasOwn(FORBIDDEN_SYNONYMS, word)
    ? FORBIDDEN_SYNONYMS[word]
    : Object.hasOwn(COMMON_SYNONYMS, word)
      ? COMMON_SYNONYMS[word]
      : undefined;
