/**
 * Human text for a terminal (SPEC: tables for lists, colour unless
 * NO_COLOR). Not a contract: machines read the envelope. Loaded only when
 * stdout is a terminal.
 */
import type { Envelope } from "./envelope.ts";

export interface TextStyle {
  readonly colour: boolean;
  readonly width: number;
}

const isScalar = (v: unknown): boolean => v === null || ["string", "number", "boolean"].includes(typeof v);
const scalarText = (v: unknown): string =>
  v === null || v === undefined ? "-" : typeof v === "string" ? v : JSON.stringify(v);

function clip(s: string, width: number): string {
  const flat = s.replace(/\s+/g, " ");
  return flat.length > width ? `${flat.slice(0, Math.max(1, width - 1))}…` : flat;
}

/** Lines of at most `width` characters, broken between words (a word longer than a line is split). */
export function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let current = "";
  for (const word of text.split(" ")) {
    let w = word;
    while (w.length > width) {
      if (current) lines.push(current);
      lines.push(w.slice(0, width));
      w = w.slice(width);
      current = "";
    }
    if (!current) current = w;
    else if (current.length + 1 + w.length <= width) current += ` ${w}`;
    else {
      lines.push(current);
      current = w;
    }
  }
  if (current || lines.length === 0) lines.push(current);
  return lines;
}

/** `https://one.host/a/b` → `/a/b` when every URL in the column is on that one host: the host says nothing. */
function siteRelative(values: readonly string[]): string[] {
  const origins = new Set(values.map((v) => /^https?:\/\/[^/]+/.exec(v)?.[0] ?? null));
  const [origin] = origins;
  if (origins.size !== 1 || !origin) return [...values];
  return values.map((v) => v.slice(origin.length) || "/");
}

/** A column's cells as lines: a scalar is one, a list of scalars (the commands of a `next`) one per value. */
const cellLines = (v: unknown): string[] =>
  Array.isArray(v)
    ? v.length === 0
      ? ["-"]
      : v.map((x) => scalarText(x).replace(/\s+/g, " "))
    : [scalarText(v).replace(/\s+/g, " ")];

/**
 * How a column gives way when the terminal is narrow: `token` (an id, an
 * enum value, a code: one word without a slash) is never cut; `path` (a URL,
 * a file: one word with a slash) stays whole while it can; `text` (anything
 * with a space) wraps first.
 */
export type ColumnKind = "token" | "path" | "text";

export function columnKind(cells: readonly string[][]): ColumnKind {
  const all = cells.flat();
  if (all.some((v) => v.includes(" "))) return "text";
  return all.some((v) => v.includes("/")) ? "path" : "token";
}

/** The least a text column is given before the table gives way to blocks. */
const MIN_TEXT = 16;

/**
 * Each column its natural width when the terminal has room. Otherwise tokens
 * and paths keep theirs and text shares what is left, wrapping: it gives way
 * first. Null when that leaves text less than ${MIN_TEXT} columns: the rows
 * are then drawn as blocks (`stacked`), never by cutting an id or a path.
 */
export function columnWidths(kinds: readonly ColumnKind[], natural: readonly number[], width: number): number[] | null {
  const room = width - 2 * (kinds.length - 1);
  if (natural.reduce((a, b) => a + b, 0) <= room) return [...natural];
  const text = kinds.map((k, i) => (k === "text" ? i : -1)).filter((i) => i >= 0);
  const widths = natural.map((n, i) => (kinds[i] === "text" ? 0 : n));
  let left = room - widths.reduce((a, b) => a + b, 0);
  if (left < text.reduce((a, i) => a + Math.min(natural[i]!, MIN_TEXT), 0)) return null;
  const byNeed = [...text].sort((a, b) => natural[a]! - natural[b]!);
  byNeed.forEach((i, k) => {
    widths[i] = Math.min(natural[i]!, Math.floor(left / (byNeed.length - k)));
    left -= widths[i]!;
  });
  return widths;
}

const isCell = (v: unknown): boolean => isScalar(v) || v === undefined || (Array.isArray(v) && v.every(isScalar));

/** One row's lines: each cell's lines side by side, padded to its column. */
function layRow(cells: readonly string[][], widths: readonly number[]): string {
  const last = cells.length - 1;
  const height = Math.max(...cells.map((c) => c.length));
  return Array.from({ length: height }, (_, k) =>
    cells
      .map((c, i) => (i === last ? (c[k] ?? "") : (c[k] ?? "").padEnd(widths[i]!)))
      .join("  ")
      .trimEnd(),
  ).join("\n");
}

/**
 * Too narrow for a table: each row a block, its tokens (ids, enum values,
 * codes) whole on the first line, then each path and text cell on lines of
 * its own, named and wrapped.
 */
function stacked(columns: readonly string[], kinds: readonly ColumnKind[], rows: string[][][], width: number) {
  const tokens = columns.map((_c, i) => i).filter((i) => kinds[i] === "token");
  const rest = columns.map((_c, i) => i).filter((i) => kinds[i] !== "token");
  const widths = columns.map((c, i) => Math.max(c.length, ...rows.map((r) => Math.max(...r[i]!.map((v) => v.length)))));
  const head = tokens.map((i) => columns[i]!.toUpperCase().padEnd(widths[i]!));
  const block = (row: string[][]) => {
    const first = layRow(
      tokens.map((i) => row[i]!.map((l) => clip(l, width))),
      tokens.map((i) => widths[i]!),
    );
    const more = rest.flatMap((i) => {
      const label = `${columns[i]}: `;
      const lines = row[i]!.flatMap((l) => wrap(l, Math.max(8, width - 4 - label.length)));
      return lines.map((l, k) => `    ${k === 0 ? label : " ".repeat(label.length)}${l}`);
    });
    return [first, ...more].join("\n");
  };
  return { head: head.join("  ").trimEnd(), body: rows.map(block) };
}

export function renderTable(rows: readonly Record<string, unknown>[], style: TextStyle): string {
  const columns = Object.keys(rows[0] ?? {}).filter((k) => rows.every((r) => isCell(r[k])));
  if (columns.length === 0) return rows.map((r) => renderValue(r, style, 0)).join("\n\n");
  const byColumn = columns.map((c) => {
    const cells = rows.map((r) => cellLines(r[c]));
    const relative = siteRelative(cells.map((l) => l.join("\n")));
    return cells.map((l, r) => (l.length === 1 ? [relative[r]!] : l));
  });
  const kinds = byColumn.map(columnKind);
  const natural = columns.map((c, i) => Math.max(c.length, ...byColumn[i]!.flat().map((v) => v.length)));
  const widths = columnWidths(kinds, natural, style.width);
  const byRow = rows.map((_, r) => byColumn.map((col) => col[r]!));
  const bold = (h: string) => (style.colour ? `\u001b[1m${h}\u001b[0m` : h);
  if (!widths) {
    const { head, body } = stacked(columns, kinds, byRow, style.width);
    return [bold(head), ...body].join("\n");
  }
  // Only text wraps (a list cell, one value a line); ids, enum values and paths stay whole.
  const body = byRow.map((cells) =>
    layRow(
      cells.map((lines, i) => (kinds[i] === "text" ? lines.flatMap((l) => wrap(l, widths[i]!)) : lines)),
      widths,
    ),
  );
  const head = layRow(
    columns.map((c, i) => [clip(c.toUpperCase(), Math.max(widths[i]!, c.length))]),
    widths,
  );
  return [bold(head), ...body].join("\n");
}

export function renderValue(value: unknown, style: TextStyle, indent = 0): string {
  const pad = " ".repeat(indent);
  if (isScalar(value)) return `${pad}${scalarText(value)}`;
  if (Array.isArray(value)) {
    if (value.length === 0) return `${pad}(none)`;
    if (value.every(isScalar)) return `${pad}${value.map(scalarText).join(", ")}`;
    if (value.every((v) => v && typeof v === "object" && !Array.isArray(v)))
      return renderTable(value as Record<string, unknown>[], { ...style, width: style.width - indent })
        .split("\n")
        .map((l) => pad + l)
        .join("\n");
    return value.map((v) => `${pad}- ${renderValue(v, style, indent + 2).trimStart()}`).join("\n");
  }
  return Object.entries(value as Record<string, unknown>)
    .map(([k, v]) => {
      const key = style.colour ? `\u001b[1m${k}\u001b[0m` : k;
      return isScalar(v) || (Array.isArray(v) && v.every(isScalar))
        ? `${pad}${key}: ${renderValue(v, style).trimStart()}`
        : `${pad}${key}:\n${renderValue(v, style, indent + 2)}`;
    })
    .join("\n");
}

/** What a person sees: the data on stdout; an error, hints, truncation and the next steps (meta.next) on stderr. */
export function renderText(env: Envelope, style: TextStyle): { stdout: string; stderr: string } {
  const red = (s: string) => (style.colour ? `\u001b[31m${s}\u001b[0m` : s);
  const dim = (s: string) => (style.colour ? `\u001b[2m${s}\u001b[0m` : s);
  if (!env.ok && env.error) {
    const e = env.error!;
    const lines = [`${red("error")} ${e.code}: ${e.message}`];
    if (e.hint) lines.push(`hint: ${e.hint}`);
    return { stdout: "", stderr: `${lines.join("\n")}\n` };
  }
  const next = (env.meta.next ?? []).map((c) => `next: ${c}\n`).join("");
  const stderr = (env.meta.truncation_hint ? `${dim(`… ${env.meta.truncation_hint}`)}\n` : "") + next;
  return { stdout: `${renderValue(env.data, style)}\n`, stderr };
}
