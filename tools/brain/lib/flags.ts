/** Flags the brain commands share. */
import * as z from "agent-cli-kit/schema";
import { describe } from "agent-cli-kit";
import { MAX_NOTE_BYTES } from "./notes.ts";
import { REPO_ENV } from "./repo.ts";

export const repoFlag = describe(
  z.optional(z.string().check(z.minLength(1))),
  `The notes repository: a git repository (default: ${REPO_ENV}).`,
);
export const idFlag = describe(
  z.string().check(z.minLength(1), z.maxLength(200)),
  "The note's id (its file is notes/<id>.md).",
);
export const bodyFlag = describe(
  z.optional(z.string().check(z.maxLength(MAX_NOTE_BYTES))),
  "The note's Markdown body.",
);
export const bodyFileFlag = describe(
  z.optional(z.string().check(z.minLength(1))),
  "Read the body from this file ('-' for stdin); front matter in it supplies title, tags and source.",
);
/** A fresh schema per use: a description is attached to the schema object itself. */
export const tagFlag = (
  description = "A tag (repeat for several).",
): z.ZodMiniOptional<z.ZodMiniArray<z.ZodMiniString<string>>> =>
  describe(z.optional(z.array(z.string().check(z.regex(/^[\p{L}\p{N}][\p{L}\p{N}_/-]{0,49}$/u)))), description);
export const sourceFlag = describe(
  z.optional(z.string().check(z.maxLength(2000))),
  "Where the knowledge came from (a URL or a citation).",
);

export const REPO_VARS = [
  { name: REPO_ENV, scope: "config" as const, description: "The default notes repository (a git repository path)." },
];
