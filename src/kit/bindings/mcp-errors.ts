/**
 * One error channel over MCP: a tool's failure is a result with `isError`
 * and the contract's error object as its text, never a JSON-RPC error (those
 * are for protocol faults alone), and its hint is written for that door: an
 * MCP client passes arguments by name, so a hint to "add --url=VALUE" becomes
 * one to give the argument "url". A command line quoted in backticks is
 * left as it is: it is one a person may run.
 */
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { isKitError, type KitError, toErrorObject } from "../output/index.ts";
import type { ToolAnswer } from "./extension.ts";

const FLAG = "[a-z][a-z0-9-]*";

/** The argv door's words for a flag, in the MCP door's words for an argument (outside backticks). */
export function argumentWords(text: string): string {
  return text
    .split("`")
    .map((part, i) =>
      i % 2 === 1
        ? part
        : part
            .replace(new RegExp(`\\badd --(${FLAG})=VALUE\\b`, "g"), 'give the argument "$1"')
            .replace(new RegExp(`\\b(?:add|write) --(${FLAG})=(\\S+)`, "g"), 'give "$1": "$2"')
            .replace(new RegExp(`--params '(${FLAG})'`, "g"), 'the argument "$1"')
            .replace(new RegExp(`(^|[\\s(,;:])--(${FLAG})\\b`, "g"), '$1"$2"'),
    )
    .join("`");
}

/** A command's error object as the MCP door gives it. */
export function forMcp(error: Record<string, unknown> | null): Record<string, unknown> | null {
  if (!error) return error;
  const out = { ...error };
  // The message says what went wrong, the same through every door; the hint says what to do next, in this door's terms.
  if (typeof out.hint === "string") out.hint = argumentWords(out.hint);
  return out;
}

/** An extension's error text (a JSON error object) in the door's words; text that is not one is left as it is. */
export function errorText(text: string): string {
  try {
    const parsed = JSON.parse(text) as unknown;
    return parsed && typeof parsed === "object" && !Array.isArray(parsed)
      ? JSON.stringify(forMcp(parsed as Record<string, unknown>))
      : text;
  } catch {
    return text;
  }
}

/**
 * A failed call's answer from a typed error (its code, exit class and
 * retryability from the one table), with any fields a profile adds beside
 * the contract's (a plan waiting for a person).
 */
export function errorAnswer(e: KitError, extra: Record<string, unknown> = {}): ToolAnswer {
  return { isError: true, text: JSON.stringify({ ...toErrorObject(e), ...extra }) };
}

/** An extension's call that threw: a failed call, answered as one, unless it is a protocol fault. */
export function failedCall(e: unknown): ToolAnswer {
  if (e instanceof McpError) throw e;
  if (isKitError(e)) return errorAnswer(e);
  const error = { code: "UPSTREAM_ERROR", message: (e as Error)?.message ?? String(e), retryable: false };
  return { isError: true, text: JSON.stringify(error) };
}
