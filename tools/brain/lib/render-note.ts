/** A note as brain writes it: YAML front matter (id, title, tags, dates, source), one blank line, the body. */
import { stringify } from "yaml";

export function renderNote(n: {
  id: string;
  title: string;
  tags: readonly string[];
  created: string | null;
  updated: string | null;
  source: string | null;
  body: string;
}): string {
  const meta: Record<string, unknown> = { id: n.id, title: n.title, tags: [...n.tags] };
  if (n.created) meta.created = n.created;
  if (n.updated) meta.updated = n.updated;
  if (n.source) meta.source = n.source;
  const body = n.body.endsWith("\n") || n.body === "" ? n.body : `${n.body}\n`;
  return `---\n${stringify(meta).trimEnd()}\n---\n\n${body.replace(/^\n+/, "")}`;
}
