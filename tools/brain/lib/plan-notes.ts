/** Shared by note create/update/delete: turning flags into one plan item, validated, with nothing written to the repo. */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { CommandContext } from "agent-cli-kit";
import { KitError } from "agent-cli-kit";
import { MAX_NOTE_BYTES, splitFrontMatter } from "./notes.ts";
import { renderNote } from "./render-note.ts";
import { withWriteLock } from "./lock.ts";
import { assertClean, openRepo, type Repo } from "./repo.ts";

export interface NoteFlags {
  id?: string;
  title?: string;
  tag?: string[];
  source?: string;
  body?: string;
  bodyFile?: string;
}

/** What the invocation says about a note: flags first, then --body-file's front matter; absent where neither says. */
export interface NoteInput {
  id?: string;
  title?: string;
  tags?: string[];
  source?: string;
  body?: string;
}

export async function noteInput(ctx: CommandContext<NoteFlags>): Promise<NoteInput> {
  const { body, meta } = await bodyFrom(ctx);
  const text = (x: unknown) => (typeof x === "string" ? x : undefined);
  return {
    id: ctx.flags.id ?? text(meta.id),
    title: ctx.flags.title ?? text(meta.title),
    tags: ctx.flags.tag ?? (Array.isArray(meta.tags) ? meta.tags.map(String) : undefined),
    source: ctx.flags.source ?? text(meta.source),
    body,
  };
}

/** The body and any front matter from --body or --body-file; both at once is a usage error. */
async function bodyFrom(
  ctx: CommandContext<NoteFlags>,
): Promise<{ body: string | undefined; meta: Record<string, unknown> }> {
  const { body, bodyFile } = ctx.flags;
  if (body !== undefined && bodyFile !== undefined)
    throw new KitError("CONFLICTING_FLAGS", "give --body or --body-file, not both", { got: ["--body", "--body-file"] });
  if (bodyFile === undefined) return { body, meta: {} };
  let text: string;
  try {
    text = bodyFile === "-" ? await ctx.readStdin() : readFileSync(resolve(ctx.cwd, bodyFile), "utf8");
  } catch (e) {
    throw new KitError("INVALID_INPUT", `cannot read --body-file ${bodyFile}: ${(e as Error).message}`, {
      got: bodyFile,
    });
  }
  if (Buffer.byteLength(text) > MAX_NOTE_BYTES)
    throw new KitError(
      "INVALID_INPUT",
      `--body-file ${bodyFile} is ${Buffer.byteLength(text)} bytes; a note holds at most ${MAX_NOTE_BYTES}`,
      { got: Buffer.byteLength(text), allowed: { max: MAX_NOTE_BYTES } },
    );
  const { meta, body: rest } = splitFrontMatter(text, bodyFile);
  return { body: rest, meta };
}

/** The repository, its tree clean; checked under the write lock, so a commit another process is finishing is waited for, not seen half-synced. */
export async function cleanRepo(ctx: CommandContext<{ repo?: string }>): Promise<Repo> {
  const repo = openRepo(ctx.flags.repo, ctx.env, ctx.cwd);
  await withWriteLock(repo, ctx.env, () => assertClean(repo), ctx.signal);
  return repo;
}

/** A full note's params, held to the size limit as it will be written. */
export function noteParams(p: {
  id: string;
  title: string;
  tags: string[];
  source: string | null;
  body: string;
}): Record<string, unknown> {
  const size = Buffer.byteLength(
    renderNote({ ...p, created: "0000-00-00T00:00:00.000Z", updated: "0000-00-00T00:00:00.000Z" }),
  );
  if (size > MAX_NOTE_BYTES)
    throw new KitError("INVALID_INPUT", `the note would be ${size} bytes; a note holds at most ${MAX_NOTE_BYTES}`, {
      got: size,
      allowed: { max: MAX_NOTE_BYTES },
      hint: "split it into several notes",
    });
  return { ...p };
}
