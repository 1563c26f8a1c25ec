/** The steps that make a new repository whole: the kit installed in it, and its golden cases recorded from its binary. */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { KitError } from "../kit/index.ts";
import { VERIFY_MAIN } from "./package-info.ts";

async function run(
  argv: string[],
  cwd: string,
  signal: AbortSignal,
  env: Record<string, string | undefined> = process.env,
): Promise<{ exit: number; out: string; err: string }> {
  const p = Bun.spawn(argv, { cwd, env, stdin: "ignore", stdout: "pipe", stderr: "pipe", signal });
  const [out, err, exit] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { exit, out, err };
}

/** `npm install` in the new folder: the kit (and Bun with it) from the spec its package.json names. */
export async function installKit(dir: string, signal: AbortSignal): Promise<void> {
  const npm = Bun.which("npm");
  if (!npm)
    throw new KitError(
      "UPSTREAM_ERROR",
      "npm is not on PATH, so the new repository's dependencies cannot be installed",
      { hint: "install Node.js (it brings npm), or pass --skip-install and run npm install yourself" },
    );
  const r = await run([npm, "install", "--no-audit", "--no-fund"], dir, signal);
  if (r.exit !== 0) {
    const last = r.err.trim().split("\n").slice(-3).join(" / ");
    throw new KitError("UPSTREAM_ERROR", `npm install in ${dir} failed (exit ${r.exit}): ${last}`, {
      hint: "check the --kit spec and the registry, then run npm install there and agent-cli-kit build",
    });
  }
}

/** Records every golden case of the new tool from its binary (`verify --update`), and checks the tool strictly. */
export async function recordGoldens(dir: string, binary: string, signal: AbortSignal): Promise<number> {
  // Recording is a person's act on their own files: a CI flag in the environment must not refuse it.
  const { CI: _ci, ...env } = process.env;
  const argv = [process.execPath, VERIFY_MAIN, "--update", "--strict", "--json", "--golden", "test/golden", binary];
  const r = await run(argv, dir, signal, env);
  const answer = JSON.parse(r.out || "null") as { ok?: boolean; error?: { message?: string } } | null;
  if (!answer?.ok)
    throw new KitError(
      "INTERNAL",
      `the new tool does not pass verify --strict: ${answer?.error?.message ?? r.err.trim().split("\n").pop()}`,
    );
  const name = binary.slice(binary.lastIndexOf("/") + 1);
  return readdirSync(join(dir, "test", "golden", name)).filter((f) => f.endsWith(".json")).length;
}
