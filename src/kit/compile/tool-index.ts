/**
 * What the runtime must know of a tool before any command is loaded, as the
 * compile step derives it: the command words, each command's flags as plain
 * specs, its environment, list bounds and stage. A compiled tool carries this
 * index precomputed by the build, so resolving argv, refusing a bad flag and
 * describing the tool cost no schema construction.
 */
import type { FlagSpec } from "../cli/index.ts";
import type { Command, LaunchedCommand } from "../declare/index.ts";
import type { EnvVar } from "../identity/index.ts";

export type CommandHead = Pick<
  Command,
  | "name"
  | "resource"
  | "verb"
  | "tier"
  | "rw"
  | "person"
  | "schema"
  | "env"
  | "pagination"
  | "stage"
  | "outcome"
  | "next"
> & {
  readonly flags: readonly FlagSpec[];
  /** The paths `--fields` may name in the result. */
  readonly fields: readonly string[];
};

export interface ToolIndex {
  readonly name: string;
  readonly version: string;
  readonly contractVersion: number;
  readonly env?: readonly EnvVar[];
  readonly commands: readonly CommandHead[];
  /** Every credential the tool declares anywhere (identity's credentialNames): what its redactor masks from the first byte. */
  readonly credentials: readonly string[];
  readonly launched?: readonly LaunchedCommand[];
}
