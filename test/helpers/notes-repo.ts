/** A real git repository of notes with a gate key pair and a policy that covers it: what brain's apply tests start from. */
import { cpSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { binary, binaryFor, root, run } from "./bin.ts";
import { APPROVER, gateKeys } from "./mutation.ts";

const GIT_IDENTITY = {
  GIT_AUTHOR_NAME: "t",
  GIT_AUTHOR_EMAIL: "t@example.invalid",
  GIT_COMMITTER_NAME: "t",
  GIT_COMMITTER_EMAIL: "t@example.invalid",
};

export type Git = (...args: string[]) => string;

/** Makes `repo` (already holding its files) a repository with one commit; returns a git runner for it. */
export function commitAll(repo: string): Git {
  const git: Git = (...args) => {
    const p = Bun.spawnSync(["git", "-C", repo, ...args], {
      env: { ...process.env, ...GIT_IDENTITY },
      stdout: "pipe",
      stderr: "pipe",
    });
    if (p.exitCode !== 0) throw new Error(p.stderr.toString());
    return p.stdout.toString();
  };
  git("init", "-q", "-b", "main");
  git("add", "-A");
  git("commit", "-qm", "notes");
  return git;
}

/** The environment brain and the gate need: keys, and a policy in `dir` auto-approving note changes inside `dir` and naming the tests' approver. */
export function brainEnv(dir: string, repo: string, maxItems: number): Record<string, string> {
  const keys = gateKeys();
  const policy = join(dir, "policy.json");
  const actions = Object.fromEntries(
    ["create-note", "update-note", "delete-note"].map((a) => [
      `brain.${a}`,
      { auto_approve: true, max_write_bytes: 300_000 },
    ]),
  );
  writeFileSync(
    policy,
    JSON.stringify({
      version: "v1",
      max_items: maxItems,
      actions,
      tools: { brain: { fleet: true } },
      roots: { brain: [dir] },
      approvers: [{ name: APPROVER.name, public_key: APPROVER.publicKey }],
    }),
  );
  return {
    AGENT_GATE_PRIVATE_KEY: keys.privateKey,
    AGENT_GATE_PUBLIC_KEY: keys.publicKey,
    AGENT_POLICY_FILE: policy,
    AGENT_BRAIN_REPO: repo,
  };
}

export interface KnowledgeBase {
  /** The temporary folder holding the repository, the policy and the run directory. */
  dir: string;
  repo: string;
  run: string;
  env: Record<string, string>;
  git: Git;
  brain(args: string[], extra?: Record<string, string>, stdin?: string): ReturnType<typeof run>;
  gate(args: string[]): ReturnType<typeof run>;
}

/** A committed repository of notes in a fresh temporary folder, with its gate environment: the fixture notes unless `fill` writes others into the repository folder. */
export function knowledgeBase(opts: { fill?: (repo: string) => void; maxItems?: number } = {}): KnowledgeBase {
  const dir = mkdtempSync(join(tmpdir(), "kb-"));
  const repo = join(dir, "repo");
  if (opts.fill) opts.fill(repo);
  else cpSync(join(root, "test", "fixtures", "brain", "kb"), repo, { recursive: true });
  const git = commitAll(repo);
  const env = brainEnv(dir, repo, opts.maxItems ?? 10);
  return {
    dir,
    repo,
    run: join(dir, "run"),
    env,
    git,
    brain: (args, extra = {}, stdin) =>
      run(binaryFor("brain", extra), [...args, "--json"], { env: { ...env, ...extra }, stdin }),
    // Only the gate's own command line holds a person's key.
    gate: (args) =>
      run(binary("gate"), [...args, "--json"], { env: { ...env, AGENT_APPROVER_KEY: APPROVER.privateKey } }),
  };
}

/**
 * Every note `brain note list` gives for the repository at `repo`, page after
 * page; each call 60 ms after the one before, past the index's 50 ms racy
 * window, so that only an index that is right passes.
 */
export async function listAll(repo: string, extra: readonly string[] = []): Promise<{ id: string; title: string }[]> {
  const out: { id: string; title: string }[] = [];
  for (let cursor: string | null = null; ; ) {
    await Bun.sleep(60);
    const r = await run(binary("brain"), [
      "note",
      "list",
      "--repo",
      repo,
      "--json",
      "--limit",
      "500",
      ...extra,
      ...(cursor ? ["--cursor", cursor] : []),
    ]);
    if (r.code !== 0) throw new Error(`brain note list exited ${r.code}: ${r.stdout}`);
    out.push(...r.json.data.items);
    cursor = r.json.meta.pagination.next_cursor;
    if (!cursor) return out;
  }
}
