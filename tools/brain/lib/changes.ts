/**
 * brain's mutations: one commit per plan item, carrying the item's
 * idempotency key as a commit trailer, so "read external truth" on
 * reconcile is a lookup in git log of the trailers brain wrote itself. Each commit is made crash-safe by
 * commit.ts: a kill at any instant leaves no change or the whole commit.
 */
import { KitError } from "agent-cli-kit";
import type { ActionSpec, ExecContext, Mutations, PlanItem } from "agent-cli-kit/writes";
import { commitChange, commitsOfItem, finishOwnCommit, pathsOf, PLAN_TRAILER, sweepStaged, TRAILER } from "./commit.ts";
import { withWriteLock } from "./lock.ts";
import { noteEffect } from "./note-effects.ts";
import { checkId, notePath, notesFolder, readNoteFile, parseNote } from "./notes.ts";
import { renderNote } from "./render-note.ts";
import { assertClean, blobHash, openRepo, type Repo } from "./repo.ts";

export { TRAILER } from "./commit.ts";
export const NOTE_ACTIONS = ["create-note", "update-note", "delete-note"] as const;

/** Opened (and proven a repository) once per plan, not once per item and step. */
const opened = new WeakMap<object, Repo>();
const repoOf = (x: Pick<ExecContext, "plan" | "env">): Repo => {
  const known = opened.get(x.plan);
  if (known) return known;
  const root = x.plan.context.repo;
  if (typeof root !== "string")
    throw new KitError("PLAN_INVALID", "the plan does not name its repository (context.repo)");
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

/** The blob the item's plan expects its note at (null: absent). */
const expected = (item: PlanItem, id: string): string | null =>
  item.preconditions.find((c) => c.target === id)?.version ?? null;

/** A clean tree to commit onto, after removing what a killed write left and finishing a commit of ours it left half-synced (under the write lock). */
function ready(repo: Repo, key?: string): Repo {
  sweepStaged(notesFolder(repo.root));
  finishOwnCommit(repo, key);
  assertClean(repo);
  return repo;
}

/** An item's write, holding the repository's write lock from the clean-tree check to the synced commit. */
const locked = <T>(x: ExecContext, fn: (repo: Repo) => Promise<T>): Promise<T> => {
  const repo = repoOf(x);
  return withWriteLock(repo, x.env, () => fn(ready(repo)), x.signal);
};

async function change(
  repo: Repo,
  item: PlanItem,
  x: ExecContext,
  id: string,
  content: string | null,
  subject: string,
): Promise<Record<string, unknown>> {
  const commit = await commitChange(
    repo,
    {
      path: notePath(id),
      content: content === null ? null : new TextEncoder().encode(content),
      expect: expected(item, id),
      subject,
      body: item.reason,
      trailers: { [TRAILER]: x.idempotencyKey, [PLAN_TRAILER]: x.plan.checksum },
    },
    x.fence,
  );
  return { id, commit };
}

async function write(
  repo: Repo,
  item: PlanItem,
  x: ExecContext,
  kind: "create" | "update",
): Promise<Record<string, unknown>> {
  const p = item.params as unknown as NoteParams;
  const id = checkId(p.id);
  const existing = readNoteFile(repo.root, id);
  if (kind === "create" && existing) throw new KitError("PRECONDITION_FAILED", `note ${id} already exists`);
  if (kind === "update" && !existing) throw new KitError("PRECONDITION_FAILED", `note ${id} is gone`);
  const now = new Date(x.now()).toISOString();
  const created = existing ? parseNote(id, existing).created : now;
  return change(repo, item, x, id, renderNote({ ...p, created, updated: now }), `brain: ${kind} note ${id}`);
}

/**
 * External truth for one item: a commit on the branch that brain's apply
 * made for it (its own trailer block names the item's key) and that changed
 * the item's note and nothing else. A reason or any other text in a message
 * is never read as a trailer (commitMessage keeps it out of the block).
 */
const landed = async (item: PlanItem, x: ExecContext): Promise<boolean> => {
  const repo = repoOf(x);
  const path = notePath(checkId(String(item.params.id)));
  return commitsOfItem(repo, x.idempotencyKey).some((commit) => {
    const paths = pathsOf(repo, commit);
    return paths.length === 1 && paths[0] === path;
  });
};

/** A takeover: the ledger says this item's write was cut short, so a file its own commit left half-written is its to repair. */
const recover = async (_item: PlanItem, x: ExecContext): Promise<void> => {
  const repo = repoOf(x);
  await withWriteLock(
    repo,
    x.env,
    () => {
      sweepStaged(notesFolder(repo.root));
      finishOwnCommit(repo, x.idempotencyKey);
    },
    x.signal,
  );
};

const actions: Record<(typeof NOTE_ACTIONS)[number], ActionSpec> = {
  "create-note": {
    effect: noteEffect("create-note"),
    execute: (item, x) => locked(x, (repo) => write(repo, item, x, "create")),
    landed,
    recover,
  },
  "update-note": {
    effect: noteEffect("update-note"),
    execute: (item, x) => locked(x, (repo) => write(repo, item, x, "update")),
    landed,
    recover,
  },
  "delete-note": {
    effect: noteEffect("delete-note"),
    execute: (item, x) =>
      locked(x, async (repo) => {
        const id = checkId(String(item.params.id));
        if (!readNoteFile(repo.root, id)) throw new KitError("PRECONDITION_FAILED", `note ${id} is already gone`);
        return change(repo, item, x, id, null, `brain: delete note ${id}`);
      }),
    landed,
    recover,
  },
};

export const noteChanges: Mutations = {
  async readTarget(id, x) {
    const bytes = readNoteFile(repoOf(x).root, checkId(id));
    return bytes ? { version: blobHash(bytes), bytes: bytes.length } : null;
  },
  actions,
  errors: ["PRECONDITION_FAILED", "INVALID_VALUE"],
  root: "repo",
};
