import { resolve } from "node:path";
import * as z from "../../kit/schema.ts";
import { defineCommand, describe, KitError } from "../../kit/index.ts";
import { BuildError, buildTool } from "../build/index.ts";

/** The targets Bun compiles for; which of them build and run on a given machine is in the README. */
export const TARGETS = [
  "bun-linux-x64",
  "bun-linux-x64-baseline",
  "bun-linux-arm64",
  "bun-linux-x64-musl",
  "bun-linux-arm64-musl",
  "bun-darwin-x64",
  "bun-darwin-arm64",
  "bun-windows-x64",
] as const;

export default defineCommand({
  verb: "build",
  tier: 2,
  rw: "write",
  summary: "Compile a tool folder into one fast-start binary (index, describe, SKILL.md and validators built in).",
  description:
    "Reads tool.ts, commands/ and spec.yaml in --dir, checks the declarations, and compiles dist/NAME with Bun (dist/NAME-TARGET with --target). SKILL.md beside tool.ts is regenerated from the same declarations.",
  flags: z.object({
    dir: z.optional(describe(z.string(), "The tool's folder, holding tool.ts (default: the current folder).")),
    out: z.optional(describe(z.string(), "Where the binary goes (default: DIR/dist).")),
    target: z.optional(describe(z.enum(TARGETS), "Another platform to compile for (default: this machine's).")),
  }),
  result: z.object({
    tool: z.string(),
    binary: z.string(),
    target: z.string(),
    bytes: z.number(),
    skill: describe(z.string(), "The regenerated SKILL.md."),
  }),
  schema: "agent-cli-kit.build@1",
  errors: ["INVALID_INPUT", "UPSTREAM_ERROR"],
  examples: [{ argv: ["--dir", "./weather"], summary: "Build ./weather into ./weather/dist/weather." }],
  async run(ctx) {
    const dir = resolve(ctx.cwd, ctx.flags.dir ?? ".");
    const out = resolve(ctx.cwd, ctx.flags.out ?? resolve(dir, "dist"));
    try {
      return await buildTool(dir, out, ctx.flags.target ? { target: ctx.flags.target } : {});
    } catch (e) {
      if (e instanceof BuildError) throw new KitError("INVALID_INPUT", e.message, { hint: e.hint });
      if (e instanceof KitError) throw e;
      const text = String((e as Error).message ?? e).split("\n")[0]!;
      // A declaration the kit refuses (defineTool's checks) or a source that does not compile: the author's to fix.
      if (ctx.flags.target && /download|fetch|target/i.test(text))
        throw new KitError("UPSTREAM_ERROR", `Bun could not compile for ${ctx.flags.target}: ${text}`, {
          hint: "cross-compiling fetches that platform's Bun from the npm registry: check the network, or build on that platform",
        });
      throw new KitError("INVALID_INPUT", `${dir} does not build: ${text}`, {
        hint: "fix the declaration the message names, then build again",
      });
    }
  },
});
