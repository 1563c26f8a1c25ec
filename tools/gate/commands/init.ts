import { resolve } from "node:path";
import * as z from "agent-cli-kit/schema";
import { defineCommand, describe } from "agent-cli-kit";
import {
  envLines,
  governedTools,
  keyPair,
  policyFor,
  rootsGiven,
  SETUP_FILES,
  toolSpec,
  writeSetup,
} from "../../../src/gate/setup.ts";

export default defineCommand({
  verb: "init",
  tier: 2,
  rw: "write",
  // A person's set-up act: it makes the keys that approve, so no MCP profile, declared tool or job step offers it.
  person: true,
  summary:
    "Set up a gate: a gate key pair, an approver key pair and a complete policy governing the tools named, in a new folder; prints the environment lines to use them.",
  description:
    "Each --tool is a path to a tool's binary (the policy names it by that path, relative to the folder, and its sha256) or the name of a fleet tool installed beside the gate. Its actions and the context field naming where its plans act are read from the tool's own `target list --describe`; every action is auto-approved within modest limits (edit the policy to tighten them), and the approver key's holder may approve the rest. Keys are written owner-only, never printed: the lines in `env` read them from their files. Refuses a folder that already holds a key or a policy (CONFLICT).",
  flags: z.object({
    dir: describe(z.string().check(z.minLength(1)), "The folder to write the keys and policy into (made if absent)."),
    tool: describe(
      z.array(z.string().check(z.minLength(1))),
      "A tool to govern: the path to its binary, or a fleet tool's name (repeat for several).",
    ),
    root: describe(
      z.optional(z.array(z.string())),
      "TOOL=FOLDER: where that tool's plans may act (repeat; needed for each tool whose plans act on a folder).",
    ),
    approver: describe(
      z.optional(z.string().check(z.minLength(1), z.maxLength(200))),
      "The approver's name, as approvals will record it (default: Approver).",
    ),
  }),
  result: z.object({
    dir: z.string(),
    files: describe(z.array(z.string()), "The files written (none with --dry-run)."),
    tools: z.array(z.string()),
    env: describe(
      z.array(z.string()),
      "Shell lines that put the keys and policy to use; each reads a key from its file.",
    ),
  }),
  schema: "gate.init@1",
  errors: ["NOT_FOUND", "INVALID_INPUT", "INVALID_VALUE", "MISSING_FLAG", "CONFLICT", "UPSTREAM_ERROR"],
  examples: [
    {
      argv: ["--dir", "./gate-setup", "--tool", "./dist/weather", "--root", "weather=./data"],
      summary: "Keys and a policy governing the tool built at ./dist/weather, acting inside ./data.",
    },
  ],
  async run(ctx) {
    const dir = resolve(ctx.cwd, ctx.flags.dir);
    const specs = ctx.flags.tool.map((t) => toolSpec(t, ctx.cwd, dir));
    const tools = await governedTools(specs, rootsGiven(ctx.flags.root ?? [], ctx.cwd), ctx.env, ctx.signal);
    const answer = { dir, files: [] as string[], tools: tools.map((t) => t.name), env: envLines(dir) };
    if (ctx.dryRun) return answer;
    const gate = keyPair();
    const approver = keyPair();
    const policy = policyFor(dir, tools, approver.publicKey, ctx.flags.approver ?? "Approver");
    writeSetup(dir, {
      gateKey: gate.privateKey,
      gatePublic: `${gate.publicKey}\n`,
      approverKey: approver.privateKey,
      policy: `${JSON.stringify(policy, null, 2)}\n`,
    });
    return { ...answer, files: Object.values(SETUP_FILES) };
  },
});
