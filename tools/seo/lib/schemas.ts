/** The shapes seo's findings and scores share: one definition each. A page's shape is in page-schema.ts, built only by the commands that show pages. */
import * as z from "agent-cli-kit/schema";
import { describe } from "agent-cli-kit";

export const SEVERITIES = ["low", "medium", "high"] as const;
export type Severity = (typeof SEVERITIES)[number];
export const CATEGORIES = ["indexability", "content", "links", "media", "international", "mobile"] as const;
export type Category = (typeof CATEGORIES)[number];

export const severity = z.enum(SEVERITIES);

export const finding = z.object({
  id: describe(z.string(), "Stable id: the same problem on the same page keeps its id across runs."),
  rule: z.string(),
  severity,
  category: z.enum(CATEGORIES),
  url: z.string(),
  message: z.string(),
  detail: z.record(z.string(), z.unknown()),
});
export type Finding = z.output<typeof finding>;

export const categoryScore = z.object({
  category: z.enum(CATEGORIES),
  score: describe(z.number(), "0–100."),
  weight: z.number(),
  findings: z.number(),
  rules_failed: z.array(z.string()),
});
