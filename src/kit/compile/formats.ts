/**
 * The string formats a compiled tool's validators check, with zod's meaning:
 * a `z.url()` is what the WHATWG URL parser accepts (zod trims it first).
 * A format used by a schema and missing here fails the build.
 */
export const uri = (value: string): boolean => URL.canParse(value.trim());
