/** Minimal text edits: what a plan item carries, and how they apply. */
export interface Edit {
  /** UTF-16 offset into the file's text, as planned. */
  at: number;
  /** The exact text found there, replaced by `insert`. */
  remove: string;
  insert: string;
}

/** Applies edits (given in ascending order, non-overlapping) or says which one no longer fits. */
export function applyEdits(text: string, edits: readonly Edit[]): string | { misfit: number } {
  let out = "";
  let pos = 0;
  for (const [i, e] of edits.entries()) {
    if (e.at < pos || text.slice(e.at, e.at + e.remove.length) !== e.remove) return { misfit: i };
    out += text.slice(pos, e.at) + e.insert;
    pos = e.at + e.remove.length;
  }
  return out + text.slice(pos);
}
