/**
 * A declaration mistake is the tool author's, found before any user input is
 * read (at build, or at `runMain`): one line naming the file it is in, the
 * tool and command, what is wrong and the fix. Never a TypeError from deep in
 * the kit. docs/declaration-mistakes.md lists every one.
 */
import { dirname, isAbsolute, relative, sep } from "node:path";

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
/** The kit's own folder: a command its helpers declare (plan, apply) is named by the tool file that called them. */
const KIT = `${dirname(import.meta.dir)}${sep}`;

/**
 * The file that called into the declaration functions: the first stack frame
 * outside the kit, relative to the working folder when inside it. In a
 * compiled binary every frame is the bundle's, so it is unknown (undefined).
 */
export function callerFile(stack: string | undefined = new Error().stack): string | undefined {
  for (const line of (stack ?? "").split("\n").slice(1)) {
    const file = line.match(FRAME_FILE)?.[1];
    if (!file || file.startsWith(KIT) || file.startsWith("/$bunfs") || file.includes("node:")) continue;
    const rel = relative(process.cwd(), file);
    return rel.startsWith("..") || isAbsolute(rel) ? file : rel;
  }
  return undefined;
}

/** A value as a message shows it: strings quoted, the rest as JSON. */
export const shown = (v: unknown): string => (v === undefined ? "undefined" : typeof v === "function" ? "a function" : (JSON.stringify(v) ?? String(v)));
