/** The tool under verification, as every check sees it: its sandbox, findings and describe document. */
import { KNOWN_CODE_EXITS } from "./contract.ts";
import type { Extension, Findings } from "./report.ts";
import type { Sandbox } from "./sandbox.ts";
import type { DescribeDoc } from "./schemas.ts";

export interface Subject {
  readonly sandbox: Sandbox;
  readonly findings: Findings;
  /** Null until --describe has been read. */
  doc: DescribeDoc | null;
  /** --strict: every check at the level the tool claims must be proven; one no probe proved fails. */
  readonly strict: boolean;
  /** The gate given by --gate, for the tool's own plans and golden cases that drive it; else found beside the tool or on PATH. */
  readonly gate?: string | null;
  /** --all-extensions: every kit extension is demanded, claimed or not. */
  readonly allExtensions: boolean;
  /** The exit each error code was first seen with: one code, one exit class (contract §5). */
  readonly exits: Map<string, number | null>;
}

/** The exit class of an error code: fixed by the contract, published in --describe, or as first seen (else this run's exit). */
export const classOf = (s: Subject, code: string, exit: number | null): number | null =>
  KNOWN_CODE_EXITS[code] ?? s.doc?.error_codes?.[code]?.exit ?? s.exits.get(code) ?? exit;

/** Whether the tool is held to a kit extension: it claims it, or verify runs --all-extensions. */
export const holds = (s: Subject, ext: Extension): boolean =>
  s.allExtensions || (s.doc?.extensions.includes(ext) ?? false);
