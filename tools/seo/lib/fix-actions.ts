/** The kinds of fix seo plans; a module of its own so start-up does not load the planner. */
export const FIX_ACTIONS = [
  "set-lang",
  "add-viewport",
  "add-canonical",
  "remove-duplicate-canonical",
  "add-meta-description",
  "fix-broken-link",
] as const;
export type FixAction = (typeof FIX_ACTIONS)[number];
