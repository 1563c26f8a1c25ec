/**
 * contract §5: exactly one envelope on stdout, in the encoding asked for,
 * every byte through the redactor; the exit code is the error's class.
 * Asked for both JSON and TOON, the answer is JSON (the one an agent can
 * always parse) saying they conflict.
 */
import type { Redactor } from "../identity/redact.ts";
import type { Envelope } from "./envelope.ts";
import { exitCodeOf } from "./errors.ts";

export type Mode = "json" | "toon" | "text";

/** JSON when asked, or off a terminal unless TOON was asked for; text on a terminal. */
export const modeOf = (asked: { json: boolean; toon: boolean }, stdoutIsTTY: boolean): Mode =>
  asked.json || (!asked.toon && !stdoutIsTTY) ? "json" : asked.toon ? "toon" : "text";

export interface Sink {
  readonly mode: Mode;
  readonly redact: Redactor;
  /** Colour and width, for text on a terminal. */
  readonly colour: boolean;
  readonly width: number;
  writeStdout(text: string): Promise<void>;
  writeStderr(text: string): void;
}

/** Writes the envelope and returns the exit code that agrees with it. */
export async function emitEnvelope(env: Envelope, sink: Sink): Promise<number> {
  if (sink.mode === "text") {
    const { renderText } = await import("./text.ts");
    // Text clips cells to the terminal's width: the envelope is redacted before anything is clipped
    // (the redactor keeps JSON valid), and the drawn text once more after.
    const redacted = JSON.parse(sink.redact(JSON.stringify(env))) as Envelope;
    const out = renderText(redacted, { colour: sink.colour, width: sink.width });
    if (out.stdout) await sink.writeStdout(sink.redact(out.stdout));
    if (out.stderr) sink.writeStderr(sink.redact(out.stderr));
  } else if (sink.mode === "toon") {
    const { encode } = await import("@toon-format/toon");
    await sink.writeStdout(sink.redact(`${encode(env)}\n`));
  } else {
    await sink.writeStdout(sink.redact(`${JSON.stringify(env)}\n`));
  }
  return env.error ? exitCodeOf(env.error.code) : 0;
}
