/**
 * What `zod/mini` is inside a compiled tool. A compiled tool checks flags
 * and results with validators generated at build time from its schemas, and
 * reads flag specs and field paths from its index, so the schema objects its
 * modules declare are never used there: this stand-in makes declaring them
 * free. Using one anyway (parsing with it, reading its shape) is a
 * programming error and fails loudly instead of passing anything.
 */
const refuse = (use: string): never => {
  throw new Error(`${use}: zod schemas are compiled out of a built tool; flags and results are checked by the kit`);
};
const USES = new Set<PropertyKey>([
  "parse",
  "safeParse",
  "parseAsync",
  "safeParseAsync",
  "decode",
  "encode",
  "shape",
  "_zod",
  "def",
]);

/** Any declaration: every call and property returns it again, so `z.string().check(z.minLength(1))` builds nothing. */
const inert: any = new Proxy(function declaration() {}, {
  get: (_target, key) =>
    USES.has(key) ? refuse(`.${String(key)}`) : key === "then" || typeof key === "symbol" ? undefined : inert,
  apply: () => inert,
});

export const _default = inert,
  array = inert,
  boolean = inert,
  extend = inert,
  int = inert,
  iso = inert,
  literal = inert,
  maxLength = inert,
  maximum = inert,
  minLength = inert,
  minimum = inert,
  nullable = inert,
  number = inert,
  object = inert,
  optional = inert,
  record = inert,
  regex = inert,
  string = inert,
  unknown = inert,
  url = inert;
export { inert as enum };
export const globalRegistry = { add: () => globalRegistry };
export const toJSONSchema = (): never => refuse("toJSONSchema");
