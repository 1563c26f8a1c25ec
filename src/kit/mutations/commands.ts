/**
 * contract §8 on the tool's side: the commands the kit gives a mutating
 * tool whose actions are `m`: `apply`, `target list` (the gate's read-back),
 * `plan-item list` (a plan's items, page by page) and `action list`.
 */
import type { CommandSpec } from "../declare/index.ts";
import type { Mutations } from "./actions.ts";
import { applyCommand } from "./apply-command.ts";
import { actionListCommand, itemListCommand, targetListCommand } from "./read-commands.ts";

export type { ActionSpec, Effect, ExecContext, Mutations, ReadContext, TargetState } from "./actions.ts";

export const mutationCommands = (tool: string, m: Mutations): CommandSpec<any, any>[] => [
  applyCommand(tool, m),
  targetListCommand(tool, m),
  itemListCommand(tool),
  actionListCommand(tool),
];
