/** The finding filters `audit` and `finding list` both take: one declaration. */
import * as z from "agent-cli-kit/schema";
import { describe } from "agent-cli-kit";
import { RULE_IDS } from "./rules-meta.ts";
import { severity } from "./schemas.ts";

export const findingFilterFlags = {
  severity: z._default(describe(severity, "Show findings at or above this severity."), "low"),
  rule: z.optional(describe(z.enum(RULE_IDS), "Show only this rule's findings.")),
  url: z.optional(describe(z.string(), "Show only findings on this page URL.")),
};
