/**
 * What a tool answers before any command runs: `--describe` (contract §9,
 * the bare document), `--help` and `--version` (text, or inside an envelope
 * with --json), the documents it carries (`--skill`, `--spec`), and `--mcp`.
 */
import { parseFlags, resolveCommand, UNIVERSAL_ARGV } from "../cli/index.ts";
import type { CommandHead } from "../compile/index.ts";
import { DOCUMENT_FLAGS, type DocumentFlag, HELP_DOCUMENT } from "../base/index.ts";
import type { DescribeDoc } from "../introspection/index.ts";
import { KitError } from "../output/index.ts";
import type { Invocation } from "./invocation.ts";
import { fleetTool, selfArgv } from "./multicall.ts";
import { kitVersion, versionLine } from "./version.ts";
import type { ToolSource } from "./source.ts";

/** Loaded only when a tool-level flag asks for it: a command that runs, and the whole tool's --describe, never read it. */
const introspection = () => import("../introspection/index.ts");

const docOf = async (source: ToolSource, command?: CommandHead): Promise<DescribeDoc> => {
  const doc = JSON.parse(await source.describe()) as DescribeDoc;
  return command ? (await introspection()).narrowDoc(doc, command.name) : doc;
};

/** The bare document, not an envelope; exit 0. The whole tool's, off a terminal, is printed as it was built. */
export async function printDescribe(inv: Invocation, command?: CommandHead): Promise<number> {
  const tty = inv.io.stdoutIsTTY;
  const text =
    command || tty
      ? JSON.stringify(await docOf(inv.source, command), null, tty ? 2 : undefined)
      : await inv.source.describe();
  await inv.io.writeStdout(inv.redact.builtIn(`${text}\n`));
  return 0;
}

/** `--help` prints text, piped or not; `--help --json` answers with an envelope, for a caller that parses every answer. */
export async function printHelp(inv: Invocation, command?: CommandHead): Promise<number> {
  const text = (!command && (await inv.source.document(HELP_DOCUMENT))) || (await renderHelp(inv.source, command));
  if (!inv.early.json) {
    await inv.io.writeStdout(inv.redact.builtIn(text));
    return 0;
  }
  const usage = `${inv.tool.name} ${command ? `${command.name} ` : "<command> "}[flags]`;
  return inv.succeed({ help: text, usage }, { ...inv.meta(), schema: `${inv.tool.name}.help@1` });
}

/** The help text rendered from the describe document: a command's, or the tool's where the build made none. */
async function renderHelp(source: ToolSource, command?: CommandHead): Promise<string> {
  const [doc, { toolHelp, commandHelp }] = await Promise.all([docOf(source, command), introspection()]);
  return command ? commandHelp(doc, doc.commands[0]!) : toolHelp(doc);
}

/** `<tool> --skill`, `<tool> --spec`: a document built into the binary. */
async function printDocument(inv: Invocation, flag: DocumentFlag): Promise<number> {
  const file = DOCUMENT_FLAGS[flag];
  const text = await inv.source.document(file);
  if (text === null)
    throw new KitError("NOT_FOUND", `this build of ${inv.tool.name} carries no ${file}`, {
      hint: "build the tool with `npx agent-cli-kit build`: the binary carries SKILL.md and spec.yaml",
    });
  await inv.io.writeStdout(inv.redact.builtIn(text.endsWith("\n") ? text : `${text}\n`));
  return 0;
}

/**
 * `<tool> --version`: the tool's version as it declares it, the kit's and the contract's. One line
 * for a person, piped or not, as `--help` prints text; `--version --json` answers with an envelope.
 */
async function printVersion(inv: Invocation): Promise<number> {
  const kit = await kitVersion();
  const { tool } = inv;
  if (!inv.early.json) {
    await inv.io.writeStdout(versionLine(tool, kit));
    return 0;
  }
  const data = { version: tool.version, kit_version: kit, contract_version: tool.contractVersion };
  return inv.succeed(data, { ...inv.meta(), schema: `${tool.name}.version@1` });
}

/** No command words: a tool-level flag, or a usage error that teaches the command shape. */
export async function toolLevel(inv: Invocation, rest: readonly string[]): Promise<number> {
  if (rest.includes("--mcp")) return startMcp(inv, rest);
  if (inv.early.describe) return printDescribe(inv);
  if (rest.includes("--version")) return printVersion(inv);
  const wanted = (Object.keys(DOCUMENT_FLAGS) as DocumentFlag[]).find((f) => rest.includes(f));
  if (wanted) return printDocument(inv, wanted);
  if (inv.early.help) return printHelp(inv);
  const { tool } = inv;
  const stray = rest.find((t) => !t.startsWith("-"));
  const command = stray && tool.commands.find((c) => c.name.split(" ")[0] === stray);
  if (command)
    throw new KitError(
      "USAGE",
      `the command comes first: \`${tool.name} ${command.name} ${rest.filter((t) => t !== stray).join(" ")}\``.trim(),
      {
        hint: `write \`${tool.name} ${command.name} [flags]\``,
      },
    );
  parseFlags(rest, UNIVERSAL_ARGV, tool.name);
  return resolveCommand(tool, []) as never;
}

/**
 * `<tool> --mcp [--profile full|read-only] [--toon] [--structured]`: the
 * commands over MCP stdio (bindings/, loaded only here). The profile, the
 * text-block format and structured content come from the flags, else
 * AGENT_MCP_PROFILE, AGENT_MCP_OUTPUT_FORMAT and AGENT_MCP_STRUCTURED=1; an
 * unknown profile or format fails the start with one line on stderr.
 */
async function startMcp(inv: Invocation, rest: readonly string[]): Promise<number> {
  inv.delegated = true; // stdout carries protocol frames from here on: no envelope, not even on a signal
  const { io, tool } = inv;
  const at = rest.indexOf("--profile");
  const profile = (at >= 0 ? rest[at + 1] : undefined) ?? io.env.AGENT_MCP_PROFILE ?? "full";
  const format = rest.includes("--toon") ? "toon" : (io.env.AGENT_MCP_OUTPUT_FORMAT ?? "json");
  const { MCP_FORMATS, MCP_PROFILES, serveMcp } = await import("../bindings/index.ts");
  const refuse = (what: string, got: string, allowed: readonly string[]) => {
    io.writeStderr(inv.redact(`${tool.name}: unknown MCP ${what} '${got}'; one of: ${allowed.join(", ")}\n`));
    return 1;
  };
  const extensions = (await inv.source.mcpProfiles?.()) ?? {};
  const profiles = [...MCP_PROFILES, ...Object.keys(extensions)];
  if (!profiles.includes(profile)) return refuse("profile", profile, profiles);
  if (!(MCP_FORMATS as readonly string[]).includes(format)) return refuse("output format", format, MCP_FORMATS);
  const ctx = { env: io.env, cwd: io.cwd, tmpdir: io.tmpdir, now: () => io.now() };
  // A boot failure exits 1 with one line on stderr, rather than serving calls that can only fail.
  const unusable = extensions[profile]?.profile.boot?.(ctx);
  if (unusable) {
    io.writeStderr(`${tool.name}: the ${profile} profile cannot start: ${unusable}\n`);
    return 1;
  }
  const doc = JSON.parse(await inv.source.describe()) as DescribeDoc;
  await serveMcp(
    doc,
    {
      profile,
      format: format as (typeof MCP_FORMATS)[number],
      structured: rest.includes("--structured") || io.env.AGENT_MCP_STRUCTURED === "1",
      version: tool.version,
      redact: inv.redact,
      start: (name) => (name ? fleetTool(name) : selfArgv()),
      io: ctx,
    },
    extensions[profile],
  );
  return 0;
}
