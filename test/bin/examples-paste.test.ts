/**
 * contract §9: the examples the fleet documents run as printed. Every line
 * SKILL.md shows (what `<tool> --skill` prints, the same line --help and
 * --describe's command_line give) is pasted into `bash -c` in a folder
 * holding what the examples name (a notes repository at ./knowledge, an seo
 * run at ./run, the example site at ./public, a job at job.json); a write
 * gets --dry-run. Each must exit with a code its command declares, never 2.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { cpSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { baseEnv, binary, dist, root, run } from "../helpers/bin.ts";
import { brainEnv, commitAll } from "../helpers/notes-repo.ts";

const TOOLS = ["seo", "brain", "gate", "harness"] as const;

interface CommandDoc {
  name: string;
  rw: "read" | "write";
  errors: string[];
}
interface Pasted {
  tool: string;
  command: CommandDoc;
  line: string;
}

/** The ```sh lines under each `### \`tool command\`` heading. */
function skillExamples(skill: string, tool: string): { command: string; line: string }[] {
  const out: { command: string; line: string }[] = [];
  let command: string | null = null;
  let fence: string | null = null;
  for (const line of skill.split("\n")) {
    const heading = line.match(/^###\s+`([^`]+)`\s*$/);
    if (heading) command = heading[1]!.replace(`${tool} `, "");
    else if (line.startsWith("```")) fence = fence === null ? line.slice(3) : null;
    else if (fence === "sh" && command) out.push({ command, line });
  }
  return out;
}

let cwd: string;
let env: Record<string, string>;
const pasted: Pasted[] = [];
const exitsOf = new Map<string, Record<string, { exit: number }>>();

/** The folder the examples' paths point into, and the environment a person who pasted them would have. */
async function prepare(): Promise<void> {
  cwd = mkdtempSync(join(tmpdir(), "paste-"));
  cpSync(join(root, "test", "fixtures", "brain", "kb"), join(cwd, "knowledge"), { recursive: true });
  for (const id of ["old-draft", "older-draft"])
    writeFileSync(
      join(cwd, "knowledge", "notes", `${id}.md`),
      `---\nid: ${id}\ntitle: ${id}\ntags: [draft]\ncreated: 2026-01-04T00:00:00.000Z\nupdated: 2026-01-04T00:00:00.000Z\n---\n\nA draft.\n`,
    );
  commitAll(join(cwd, "knowledge"));
  cpSync(join(root, "examples", "site"), join(cwd, "public"), { recursive: true });
  env = { ...brainEnv(cwd, join(cwd, "knowledge"), 100), AGENT_HARNESS_SECRET: "paste-secret" };
  for (const stage of [
    ["crawl", "--dir", "./public", "--base-url", "https://example.com"],
    ["extract"],
    ["audit"],
    ["score"],
    ["plan"],
  ]) {
    const r = await run(binary("seo"), [...stage, "--run-dir", "./run", "--json"], { cwd, env });
    expect(r.code).toBe(0);
  }
  writeFileSync(
    join(cwd, "job.json"),
    JSON.stringify({
      id: "job-paste-1",
      run_dir: "job-run",
      steps: [{ argv: ["seo", "score", "--run-dir", "{run_dir}"] }],
      delivery: { url: "http://127.0.0.1:9/reports" },
    }),
  );
}

beforeAll(async () => {
  await prepare();
  for (const tool of TOOLS) {
    const doc = (await run(binary(tool), ["--describe"])).json as {
      commands: CommandDoc[];
      error_codes: Record<string, { exit: number }>;
    };
    exitsOf.set(tool, doc.error_codes);
    const skill = (await run(binary(tool), ["--skill"])).stdout;
    for (const { command, line } of skillExamples(skill, tool))
      pasted.push({ tool, command: doc.commands.find((c) => c.name === command)!, line });
  }
}, 120_000);

describe("every example the fleet documents runs when pasted into a shell", () => {
  test("every fleet tool documents examples, and each is under a command it has", () => {
    expect(TOOLS.filter((t) => !pasted.some((p) => p.tool === t))).toEqual([]);
    expect(pasted.filter((p) => !p.command).map((p) => p.line)).toEqual([]);
  });

  test("each exits 0 or with a code its command declares (a write with --dry-run), and none is refused as a usage error", async () => {
    const outcomes = [];
    for (const { tool, command, line } of pasted) {
      const script = command.rw === "write" && !line.includes("--dry-run") ? `${line} --dry-run` : line;
      const proc = Bun.spawn(["bash", "-c", script], {
        cwd,
        env: baseEnv({ ...env, PATH: `${dist}:${process.env.PATH}` }),
        stdout: "pipe",
        stderr: "pipe",
        timeout: 60_000,
      });
      const [stdout, exit] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
      const code: string | null = JSON.parse(stdout).error?.code ?? null;
      const exits = exitsOf.get(tool)!;
      const declared = exit === 0 || (code !== null && command.errors.includes(code) && exits[code]?.exit === exit);
      outcomes.push({ script, exit, code, declared: declared && exit !== 2 });
    }
    // Printed, so a run shows which examples succeed and which fail in a declared way.
    console.log(outcomes.map((o) => `${o.exit} ${o.code ?? "ok"}  ${o.script}`).join("\n"));
    expect(outcomes.filter((o) => !o.declared)).toEqual([]);
    expect(outcomes.length).toBeGreaterThanOrEqual(25);
  }, 300_000);
});
