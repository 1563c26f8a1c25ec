import { resolve } from "node:path";
import * as z from "../../kit/schema.ts";
import { defineCommand, describe, KitError } from "../../kit/index.ts";
import { shellWord } from "../../kit/introspection/index.ts";
import { isFreeFolder, kitResolvesFrom, placeRendered, renderTemplate } from "../scaffold.ts";
import { BUN_TYPES_VERSION, KIT_ROOT, KIT_VERSION, TYPESCRIPT_VERSION } from "../package-info.ts";
import { kitSpecFor } from "../kit-spec.ts";
import { buildTool } from "../build/index.ts";
import { installKit, recordGoldens } from "../finish.ts";

const foreignFiles = (dir: string) =>
  new KitError("INVALID_INPUT", `${dir} exists and holds files of its own`, {
    hint: "give --dir a new or empty folder: a new tool is never written over someone's files",
  });

const NAME = /^[a-z][a-z0-9-]*$/;

export default defineCommand({
  verb: "init",
  tier: 2,
  rw: "write",
  summary: "Make a new tool repository: commands, golden cases, tests, a CI script; built and verified as made.",
  description:
    "Writes a tool with one read command (`item get`), one list command (`item list`) and one write (`item create`: a plan, with its action, read-back and `apply`) into a new folder. Where the kit resolves there (installed in a folder above, or with --install), it also builds the binary and records the golden cases, so that `bash ci.sh` passes before a line is edited; otherwise `then` lists the lines that do it. `agent-cli-kit new NAME` is the same as `agent-cli-kit init --name NAME`.",
  flags: z.object({
    name: describe(z.string().check(z.regex(NAME)), "The tool's name: kebab-case, as agents will type it."),
    dir: z.optional(describe(z.string(), "Where the repository goes (default ./NAME); absent or empty.")),
    purpose: z.optional(
      describe(z.string().check(z.minLength(1), z.maxLength(200)), "One line: what the tool is for."),
    ),
    kit: z.optional(
      describe(
        z.string().check(z.minLength(1)),
        "The npm spec the new repository depends on for the kit (default: as this kit was installed: the same tarball or folder, relative to the new repository, or the same registry range).",
      ),
    ),
    install: z.optional(
      describe(
        z.boolean(),
        "Run npm install in the new folder when the kit does not resolve there (it does when installed in a folder above).",
      ),
    ),
  }),
  result: z.object({
    tool: z.string(),
    dir: z.string(),
    files: z.array(z.string()),
    installed: describe(
      z.boolean(),
      "Whether npm install ran in the new folder (--install, and the kit did not resolve there).",
    ),
    binary: describe(
      z.nullable(z.string()),
      "The built binary; null when the kit does not resolve there yet, and with --dry-run.",
    ),
    golden_cases: describe(z.number(), "Golden cases recorded from the built binary (0 until it is built)."),
    then: describe(
      z.array(z.string()),
      "Shell lines left to run before `bash ci.sh` passes; empty when it already does.",
    ),
  }),
  schema: "agent-cli-kit.init@1",
  errors: ["INVALID_INPUT", "UPSTREAM_ERROR"],
  examples: [
    {
      argv: ["--name", "weather", "--purpose", "Forecasts for a city, for agents."],
      summary: "A new tool repository in ./weather.",
    },
  ],
  async run(ctx) {
    const { name } = ctx.flags;
    const dir = resolve(ctx.cwd, ctx.flags.dir ?? name);
    const files = renderTemplate({
      name,
      purpose: ctx.flags.purpose ?? `What ${name} does, in one line.`,
      kit: ctx.flags.kit ?? kitSpecFor(dir, KIT_ROOT, KIT_VERSION),
      typescript: TYPESCRIPT_VERSION,
      typesBun: BUN_TYPES_VERSION,
    });
    if (!isFreeFolder(dir, files))
      throw new KitError("INVALID_INPUT", `${dir} exists and holds files of its own`, {
        hint: "give --dir a new or empty folder: a new tool is never written over someone's files",
      });
    const then = [
      `cd ${shellWord(dir)}`,
      "npm install",
      "npx agent-cli-kit build",
      `npx agent-cli-kit verify --update dist/${name}`,
    ];
    const answer = {
      tool: name,
      dir,
      files: files.map((f) => f.path),
      installed: false,
      binary: null as string | null,
      golden_cases: 0,
      then,
    };
    if (ctx.dryRun) return answer;
    placeRendered(dir, files);
    // Another init may have got there first: what is there now must be exactly this template.
    if (!isFreeFolder(dir, files)) throw foreignFiles(dir);
    const installed = !kitResolvesFrom(dir) && ctx.flags.install === true;
    if (installed) await installKit(dir, ctx.signal);
    else if (!kitResolvesFrom(dir)) return answer;
    ctx.log.info(`building ${name}`);
    const built = await buildTool(dir, resolve(dir, "dist"));
    const recorded = await recordGoldens(dir, built.binary, ctx.signal);
    return {
      ...answer,
      files: [...answer.files, "SKILL.md"],
      installed,
      binary: built.binary,
      golden_cases: recorded,
      then: [],
    };
  },
});
