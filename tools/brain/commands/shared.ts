import * as z from "agent-cli-kit/schema";
import { describe } from "agent-cli-kit";

export const noteSummary = z.object({
  id: z.string(),
  title: z.string(),
  tags: z.array(z.string()),
  created: z.nullable(z.string()),
  updated: z.nullable(z.string()),
  source: z.nullable(z.string()),
  bytes: z.int(),
});

export const unreadable = describe(
  z.array(z.object({ id: z.string(), reason: z.string() })),
  "Notes that could not be read (e.g. front matter that is not YAML), left out of the results.",
);
