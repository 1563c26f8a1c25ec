/** Descriptions for flags and result fields, kept in zod's registry: the one source --describe, --help and SKILL.md read. */
import * as z from "zod/mini";

/**
 * @example
 * const flags = z.object({ url: describe(z.url(), "The site to crawl.") });
 */
export const describe = <T extends z.ZodMiniType>(schema: T, description: string): T => {
  z.globalRegistry.add(schema, { description });
  return schema;
};
