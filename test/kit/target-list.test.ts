/**
 * `target list`, the gate's read-back, page by page: each page reads its own
 * targets and judges the items touching them, so reading every page judges
 * each item once (a plan of many pages used to be judged whole for each
 * page); an item that does more than its action may is refused on the page
 * holding its target. In-process, on a tool built for it.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as z from "zod/mini";
import { defineCommand, defineTool } from "../../src/kit/index.ts";
import { type Mutations, mutationCommands, planResult, writePlan } from "../../src/features/ledger/index.ts";
import { SLOW_HOOK } from "../helpers/hooks.ts";
import { runInProcess } from "../helpers/in-process.ts";

const judged: string[] = [];
const asked: string[] = [];

/** Each item writes one note, n-<i>, on a target of its own; the item with `extra` set does more than it may. */
const mutations: Mutations = {
  async readTarget(target) {
    return { version: `v-${target}`, bytes: target.length };
  },
  actions: {
    "write-note": {
      effect: {
        may: "write one note",
        async beyond(item) {
          judged.push(String(item.params.n));
          return item.params.extra ? ["it also writes beside the note"] : [];
        },
        async asks(item) {
          asked.push(String(item.params.n));
          return item.params.n === 4 ? ["note 4 is a person's to write"] : [];
        },
      },
      async execute() {
        return {};
      },
      async landed() {
        return false;
      },
    },
  },
};

const tool = defineTool({
  name: "notes",
  version: "0.1.0",
  contractVersion: 0,
  purpose: "Plans notes, for the read-back's tests.",
  commands: [
    defineCommand({
      resource: "note",
      verb: "plan",
      tier: 1,
      rw: "write",
      summary: "Plan --count notes, one target each; --overreach makes one item do more than it may.",
      flags: z.object({ count: z.int(), overreach: z.optional(z.int()) }),
      result: planResult,
      schema: "notes.note.plan@1",
      errors: [],
      async run(ctx) {
        return writePlan(ctx, async () => ({
          context: {},
          items: Array.from({ length: ctx.flags.count }, (_, n) => ({
            action: "write-note",
            reason: `note ${n}`,
            params: { n, ...(n === ctx.flags.overreach ? { extra: true } : {}) },
            preconditions: [{ target: `n-${n}`, version: null }],
          })),
        }));
      },
    }),
    ...mutationCommands("notes", mutations),
  ],
});

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}, SLOW_HOOK);

async function planned(count: number, overreach?: number): Promise<string> {
  const run = mkdtempSync(join(tmpdir(), "target-list-"));
  dirs.push(run);
  const args = ["note", "plan", "--count", String(count), "--run-dir", run, "--force"];
  const r = await runInProcess(tool, overreach === undefined ? args : [...args, "--overreach", String(overreach)]);
  expect(r.json.error).toBeNull();
  return run;
}

/** Every page of `target list --limit <limit>`, the way the gate reads them, until one fails or the last. */
async function pages(run: string, limit: number): Promise<any[]> {
  const answers = [];
  let cursor: string | null = null;
  do {
    const r = await runInProcess(tool, [
      "target",
      "list",
      "--plan",
      run,
      "--limit",
      String(limit),
      ...(cursor ? ["--cursor", cursor] : []),
    ]);
    answers.push(r.json);
    cursor = r.json.meta?.pagination?.next_cursor ?? null;
  } while (cursor);
  return answers;
}

describe("target list, page by page", () => {
  test("reading every page judges each item once, and each page reads only its own targets", async () => {
    const run = await planned(7);
    judged.length = 0;
    asked.length = 0;
    const answers = await pages(run, 3);
    expect(answers.map((a) => a.data.items.map((t: any) => t.id))).toEqual([
      ["n-0", "n-1", "n-2"],
      ["n-3", "n-4", "n-5"],
      ["n-6"],
    ]);
    expect(judged.sort()).toEqual(["0", "1", "2", "3", "4", "5", "6"]);
    expect(asked.sort()).toEqual(["0", "1", "2", "3", "4", "5", "6"]);
    // What a person must decide is named on its target's page, as before.
    expect(answers[1].data.items[1]).toEqual({
      id: "n-4",
      exists: true,
      version: "v-n-4",
      bytes: 3,
      items: [answers[1].data.items[1].items[0]],
      decide: [{ item: answers[1].data.items[1].items[0], reason: "note 4 is a person's to write" }],
    });
  });

  test("an item doing more than its action may is refused on its target's page: PLAN_INVALID, exit 3", async () => {
    const run = await planned(7, 4);
    const answers = await pages(run, 3);
    expect(answers.length).toBe(2);
    expect(answers[0].error).toBeNull();
    expect(answers[1].error.code).toBe("PLAN_INVALID");
    expect(answers[1].error.message).toContain("does more than write-note may (write one note): it also writes beside");
    expect(answers[1].error.detail.items.map((i: any) => i.action)).toEqual(["write-note"]);
    // Read whole, the plan is refused as before.
    const whole = await runInProcess(tool, ["target", "list", "--plan", run, "--limit", "1000"]);
    expect([whole.code, whole.json.error.code]).toEqual([3, "PLAN_INVALID"]);
  });
});
