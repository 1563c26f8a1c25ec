/** A real git repository of notes with a gate key pair and a policy that covers it: what brain's apply tests start from. */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { gateKeys } from "./mutation.ts";

const GIT_IDENTITY = { GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@example.invalid", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@example.invalid" };

export type Git = (...args: string[]) => string;

/** Makes `repo` (already holding its files) a repository with one commit; returns a git runner for it. */
export function commitAll(repo: string): Git {
  const git: Git = (...args) => {
    const p = Bun.spawnSync(["git", "-C", repo, ...args], { env: { ...process.env, ...GIT_IDENTITY }, stdout: "pipe", stderr: "pipe" });
    if (p.exitCode !== 0) throw new Error(p.stderr.toString());
    return p.stdout.toString();
  };
  git("init", "-q", "-b", "main");
  git("add", "-A");
  git("commit", "-qm", "notes");
  return git;
}

/** The environment brain and the gate need: keys, and a policy in `dir` auto-approving note changes inside `dir`. */
export function brainEnv(dir: string, repo: string, maxItems: number): Record<string, string> {
  const keys = gateKeys();
  const policy = join(dir, "policy.json");
  const actions = Object.fromEntries(["create-note", "update-note", "delete-note"].map((a) => [`brain.${a}`, { auto_approve: true, max_write_bytes: 300_000 }]));
  writeFileSync(policy, JSON.stringify({ version: "v1", max_items: maxItems, actions, roots: { brain: [dir] } }));
  return { AGENT_GATE_PRIVATE_KEY: keys.privateKey, AGENT_GATE_PUBLIC_KEY: keys.publicKey, AGENT_POLICY_FILE: policy, AGENT_BRAIN_REPO: repo };
}
