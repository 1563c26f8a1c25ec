/**
 * brain's mutations: one commit per plan item, carrying the item's
 * idempotency key as a commit trailer, so "read external truth" on
 * reconcile is a lookup in git log.
 */
import { rmSync, writeFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { KitError } from "../../../src/kit/index.ts";
import { type ActionSpec, type ExecContext, type Mutations, type PlanItem } from "../../../src/kit/writes.ts";
import { checkId, notePath, readNoteFile, parseNote, renderNote } from "./notes.ts";
import { assertClean, blobHash, openRepo, type Repo } from "./repo.ts";

export const NOTE_ACTIONS = ["create-note", "update-note", "delete-note"] as const;
export const TRAILER = "Idempotency-Key";

/** Opened (and proven a repository) once per plan, not once per item and step. */
const opened = new WeakMap<object, Repo>();
const repoOf = (x: Pick<ExecContext, "plan" | "env">): Repo => {
  const known = opened.get(x.plan);
  if (known) return known;
  const root = x.plan.context.repo;
  if (typeof root !== "string") throw new KitError("PLAN_INVALID", "the plan does not name its repository (context.repo)");
  const repo = openRepo(root, x.env, "/");
  opened.set(x.plan, repo);
  return repo;
};

interface NoteParams {
  id: string;
  title: string;
  tags: string[];
  source: string | null;
  body: string;
}

function commit(repo: Repo, item: PlanItem, x: ExecContext, subject: string): string {
  const identity = repo.git(["config", "user.email"], { allowFail: true }).code === 0 ? [] : ["-c", "user.name=brain", "-c", "user.email=brain@localhost"];
  repo.git([...identity, "commit", "--quiet", "--no-verify", "-m", subject, "-m", item.reason, "-m", `${TRAILER}: ${x.idempotencyKey}\nBrain-Plan: ${x.plan.checksum}`]);
  return repo.git(["rev-parse", "HEAD"]).stdout.trim();
}

function write(repo: Repo, item: PlanItem, x: ExecContext, kind: "create" | "update"): Record<string, unknown> {
  assertClean(repo);
  const p = item.params as unknown as NoteParams;
  const path = notePath(checkId(p.id));
  const existing = readNoteFile(repo.root, p.id);
  if (kind === "create" && existing) throw new KitError("PRECONDITION_FAILED", `note ${p.id} already exists`);
  if (kind === "update" && !existing) throw new KitError("PRECONDITION_FAILED", `note ${p.id} is gone`);
  const now = new Date().toISOString();
  const created = existing ? parseNote(p.id, existing).created : now;
  mkdirSync(dirname(join(repo.root, path)), { recursive: true });
  writeFileSync(join(repo.root, path), renderNote({ ...p, created, updated: now }));
  repo.git(["add", "--", path]);
  return { id: p.id, commit: commit(repo, item, x, `brain: ${kind} note ${p.id}`) };
}

const landed = async (item: PlanItem, x: ExecContext): Promise<boolean> =>
  repoOf(x).git(["log", "--all", "-F", `--grep=${TRAILER}: ${x.idempotencyKey}`, "--format=%H", "-n", "1"]).stdout.trim() !== "";

const actions: Record<(typeof NOTE_ACTIONS)[number], ActionSpec> = {
  "create-note": { execute: async (item, x) => write(repoOf(x), item, x, "create"), landed },
  "update-note": { execute: async (item, x) => write(repoOf(x), item, x, "update"), landed },
  "delete-note": {
    async execute(item, x) {
      const repo = repoOf(x);
      assertClean(repo);
      const id = checkId(String(item.params.id));
      if (!readNoteFile(repo.root, id)) throw new KitError("PRECONDITION_FAILED", `note ${id} is already gone`);
      repo.git(["rm", "--quiet", "--", notePath(id)]);
      rmSync(join(repo.root, notePath(id)), { force: true });
      return { id, commit: commit(repo, item, x, `brain: delete note ${id}`) };
    },
    landed,
  },
};

export const noteChanges: Mutations = {
  async readTarget(id, x) {
    const bytes = readNoteFile(repoOf(x).root, checkId(id));
    return bytes ? { version: blobHash(bytes), bytes: bytes.length } : null;
  },
  actions,
  errors: ["PRECONDITION_FAILED", "INVALID_VALUE"],
};
