/**
 * contract §5: exactly one envelope on stdout, in the encoding asked for,
 * every byte through the redactor; the exit code is the error's class.
 * Asked for both JSON and TOON, the answer is JSON (the one an agent can
 * always parse) saying they conflict.
 */
import type { Envelope } from "./envelope.ts";
import { exitCodeOf } from "./errors.ts";

export type Mode = "json" | "toon" | "text";

/** JSON when asked, or off a terminal unless TOON was asked for; text on a terminal. */
export const modeOf = (asked: { json: boolean; toon: boolean }, stdoutIsTTY: boolean): Mode =>
  asked.json || (!asked.toon && !stdoutIsTTY) ? "json" : asked.toon ? "toon" : "text";

export interface Sink {
  readonly mode: Mode;
  /** Every byte written passes it (the identity section's redactor). */
  readonly redact: (text: string) => string;
  /** Colour and width, for text on a terminal. */
  readonly colour: boolean;
  readonly width: number;
  writeStdout(text: string): Promise<void>;
  writeStderr(text: string): void;
}

/**
 * contract §10, register-once secrets: the one place a secret is not masked.
 * The envelope is redacted without them, then they are put back at the end
 * of `meta` (its last field, in the envelope's last field), so no pattern of
 * the redactor can touch them, and nothing else of the envelope escapes it.
 */
function withSecrets(env: Envelope): { rest: Envelope; secrets: Record<string, string> | null } {
  const { secrets_out, ...meta } = env.meta;
  return secrets_out && Object.keys(secrets_out).length > 0
    ? { rest: { ...env, meta }, secrets: secrets_out }
    : { rest: env, secrets: null };
}

/** Writes the envelope and returns the exit code that agrees with it. */
export async function emitEnvelope(whole: Envelope, sink: Sink): Promise<number> {
  const { rest: env, secrets } = withSecrets(whole);
  if (sink.mode === "text") {
    const { renderText } = await import("./text.ts");
    // Text clips cells to the terminal's width: the envelope is redacted before anything is clipped
    // (the redactor keeps JSON valid), and the drawn text once more after.
    const redacted = JSON.parse(sink.redact(JSON.stringify(env))) as Envelope;
    const out = renderText(redacted, { colour: sink.colour, width: sink.width });
    const issued = secrets
      ? `\nIssued once, stored nowhere (keep it now):\n${Object.entries(secrets)
          .map(([k, v]) => `  ${k}=${v}`)
          .join("\n")}\n`
      : "";
    if (out.stdout || issued) await sink.writeStdout(sink.redact(out.stdout) + issued);
    if (out.stderr) sink.writeStderr(sink.redact(out.stderr));
  } else if (sink.mode === "toon") {
    const { encode } = await import("@toon-format/toon");
    // meta is the envelope's last field and its fields are indented by two: the secrets follow them.
    const tail = secrets ? `\n${encode({ secrets_out: secrets }).replace(/^/gm, "  ")}` : "";
    await sink.writeStdout(`${sink.redact(encode(env))}${tail}\n`);
  } else {
    const text = sink.redact(JSON.stringify(env));
    await sink.writeStdout(`${secrets ? `${text.slice(0, -2)},"secrets_out":${JSON.stringify(secrets)}}}` : text}\n`);
  }
  return env.error ? exitCodeOf(env.error.code) : 0;
}
