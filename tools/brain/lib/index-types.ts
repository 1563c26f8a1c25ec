/** The shapes brain's note index answers with, and the logger it reports to. */
import type { Note } from "./notes.ts";

/** A note as the index keeps it; `body` only when asked for. */
export type IndexedNote = Omit<Note, "body"> & { body?: string };
export type NoteSummary = Omit<Note, "body" | "blob">;

export interface SearchHit {
  /** The note, body included, as the ranking saw it. */
  readonly note: IndexedNote;
  readonly score: number;
}

export interface Logger {
  warn(message: string): void;
  /** Progress of a long (re)index, for a person at a terminal. */
  progress?(label: string, done: number, total: number): void;
}

/** Which part of a list to read. */
export interface Window {
  readonly offset: number;
  readonly limit: number;
}
