import { describe, expect, test } from "bun:test";
import * as z from "zod/mini";
import { defineCommand, defineTool, type CommandSpec } from "../../src/kit/declare/define.ts";

const base = {
  tier: 2,
  verb: "scan",
  rw: "read",
  summary: "s",
  flags: z.object({}),
  result: z.object({}),
  schema: "t.scan@1",
  errors: [],
  run: async () => ({}),
} as const;
const tool = (...commands: CommandSpec<any, any>[]) =>
  defineTool({ name: "t", version: "1", contractVersion: 0, purpose: "p", commands });

describe("declarations are checked against the contract at start-up", () => {
  test("a well-formed tool is accepted", () => {
    expect(tool(defineCommand(base)).commands[0]!.name).toBe("scan");
  });

  const bad: [string, object, string][] = [
    ["a forbidden synonym", { verb: "ls", schema: "t.ls@1" }, "forbidden synonym"],
    ["a tier-2 verb claiming tier 1", { tier: 1, verb: "scan" }, "not a tier-1 verb"],
    ["a tier-1 verb claiming tier 2", { tier: 2, verb: "list", schema: "t.list@1" }, "is tier 1"],
    ["a get declared as a write", { tier: 1, verb: "get", rw: "write", schema: "t.get@1" }, "read verb"],
    ["a wrong schema id", { schema: "t.other@1" }, 'schema must be "t.scan@N"'],
    ["a flag that redefines a universal flag", { flags: z.object({ limit: z.number() }) }, "--limit is universal"],
    ["a flag shaped like a credential", { flags: z.object({ apiKey: z.string() }) }, "looks like a credential"],
    ["an undeclared error code", { errors: ["NOPE"] }, 'unknown error code "NOPE"'],
  ];
  for (const [name, override, message] of bad)
    test(`refuses ${name}`, () => {
      expect(() => tool({ ...base, ...override } as never)).toThrow(message);
    });

  test("refuses a command declared twice", () => {
    expect(() => tool(defineCommand(base), defineCommand(base))).toThrow("declared twice");
  });

  test("a tool's own `item list` beside the kit's write commands is fine; a second `action list` says the kit gives it", () => {
    const list = {
      ...base,
      tier: 1,
      resource: "item",
      verb: "list",
      schema: "t.item.list@1",
      list: { defaultLimit: 5 },
    };
    const kits = { ...list, resource: "action", schema: "t.action.list@1" };
    expect(tool(defineCommand(list as never)).commands[0]!.name).toBe("item list");
    expect(() => tool(defineCommand(kits as never), defineCommand(kits as never))).toThrow(
      '"action list" is a command the kit gives every tool that writes',
    );
  });
});
