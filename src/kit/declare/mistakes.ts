/**
 * A declaration mistake is the tool author's, found before any user input is
 * read (at build, or at `runMain`): one line naming the file it is in, the
 * tool and command, what is wrong and the fix. Never a TypeError from deep in
 * the kit. docs/declaration-mistakes.md lists every one.
 */

export class DeclarationError extends Error {
  override readonly name = "DeclarationError";
  constructor(
    readonly where: string,
    readonly problem: string,
    readonly fix: string,
  ) {
    super(`${where}: ${problem}. Fix: ${fix}`);
  }
}

/** Where a declaration names itself: its file when known, the tool, the command. */
export interface Place {
  readonly file?: string | undefined;
  readonly tool: string;
  readonly command?: string | undefined;
}

export const placeText = (p: Place): string =>
  `${p.file ? `${p.file}: ` : ""}tool ${p.tool}${p.command === undefined ? "" : `, command "${p.command}"`}`;

/** Throws the mistake at a place; typed `never` so checks read as guards. */
export const mistakeAt =
  (p: Place) =>
  (problem: string, fix: string): never => {
    throw new DeclarationError(placeText(p), problem, fix);
  };

const FRAME_FILE = /\(?((?:\/|[A-Za-z]:\\)[^()]*?):\d+:\d+\)?\s*$/;
/**
 * The kit's own folder: a command its helpers declare (plan, apply) is named by the tool file that called them.
 * Plain string work, not node:path: this module loads with every command, and node:path costs start-up.
 */
const SEP = import.meta.dir.includes("\\") ? "\\" : "/";
const KIT = `${import.meta.dir.slice(0, import.meta.dir.lastIndexOf(SEP))}${SEP}`;
/** In a compiled binary every frame is the bundle's: no file to name, so no stack is taken. */
export const COMPILED = import.meta.dir.startsWith("/$bunfs") || /^[A-Za-z]:\\~BUN/.test(import.meta.dir);

/**
 * The file that called into the declaration functions: the first stack frame
 * outside the kit, relative to the working folder when inside it. In a
 * compiled binary every frame is the bundle's, so it is unknown (undefined).
 */
export function callerFile(stack?: string): string | undefined {
  if (COMPILED && stack === undefined) return undefined;
  const cwd = `${process.cwd()}${SEP}`;
  for (const line of (stack ?? new Error().stack ?? "").split("\n").slice(1)) {
    const file = line.match(FRAME_FILE)?.[1];
    if (!file || file.startsWith(KIT) || file.startsWith("/$bunfs") || file.includes("node:")) continue;
    return file.startsWith(cwd) ? file.slice(cwd.length) : file;
  }
  return undefined;
}

/** A value as a message shows it: strings quoted, the rest as JSON. */
export const shown = (v: unknown): string =>
  v === undefined ? "undefined" : typeof v === "function" ? "a function" : (JSON.stringify(v) ?? String(v));
