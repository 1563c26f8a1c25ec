/**
 * `--fields a,b.c` (contract §3): on a result the tool gave, a top-level
 * field and, where the result has one, a nested path are each asked for; the
 * answer is the same envelope with data projected to exactly that path.
 */
import { isDeepStrictEqual } from "node:util";
import { inspectEnvelope } from "../base/inspect.ts";
import type { RunResult } from "../base/sandbox.ts";
import type { CommandDoc, Envelope } from "../base/schemas.ts";
import { classOf, type Subject } from "../base/subject.ts";
import { firstField } from "./values.ts";

const isObject = (x: unknown): x is Record<string, unknown> => x !== null && typeof x === "object" && !Array.isArray(x);

/**
 * A path `a.b` into an object the result holds: from the command's output
 * schema where it has one (the paths the tool says it has), else from the data.
 */
function nestedPath(command: CommandDoc, data: Record<string, unknown>): string[] | null {
  const schema = (command.output_schema?.properties ?? null) as Record<string, { properties?: object }> | null;
  for (const [key, value] of Object.entries(data)) {
    if (!isObject(value)) continue;
    const known = schema ? Object.keys(schema[key]?.properties ?? {}) : Object.keys(value);
    const sub = known.find((k) => k in value);
    if (sub) return [key, sub];
  }
  return null;
}

/** Whether `data` holds exactly the path and nothing else beside it. */
function exactly(data: unknown, path: readonly string[]): boolean {
  let node = data;
  for (const part of path) {
    if (!isObject(node) || Object.keys(node).length !== 1 || !(part in node)) return false;
    node = node[part];
  }
  return true;
}

async function askFields(s: Subject, command: CommandDoc, r: RunResult, full: Envelope, path: string[]) {
  const spec = path.join(".");
  const p = await s.sandbox.run({
    ...r.run,
    label: `${r.run.label} --fields ${spec}`,
    argv: [...r.run.argv, "--fields", spec],
  });
  const slim = inspectEnvelope(s, p, command);
  if (!slim) return;
  const f = s.findings;
  // A path the result plainly has, refused: the tool does not project to it (a failure of another kind is not this one's finding).
  if (!slim.ok) {
    if (classOf(s, slim.error!.code, p.exit) === 2)
      f.fail(
        "output.fields-shape",
        `--fields ${spec}, a path its own result has, is refused: ${slim.error!.message}`,
        p,
      );
    return;
  }
  const sameShape =
    isDeepStrictEqual(Object.keys(slim), Object.keys(full)) &&
    isDeepStrictEqual(Object.keys(slim.meta).sort(), Object.keys(full.meta).sort());
  const keys = isObject(slim.data) ? JSON.stringify(slim.data).slice(0, 120) : String(slim.data);
  f.expect(
    "output.fields-shape",
    sameShape && exactly(slim.data, path),
    `--fields ${spec} ${sameShape ? `gave data ${keys}; expected exactly the path ${spec}` : "changed the envelope's shape"}`,
    p,
  );
}

/** --fields on a result the tool gave: its first field, then a nested path where the result has one. */
export async function checkFields(s: Subject, command: CommandDoc, r: RunResult, full: Envelope): Promise<void> {
  if (!isObject(full.data) || r.run.argv.some((a) => a.startsWith("--fields"))) return;
  const declared = firstField(command);
  const field = declared !== null && declared in full.data ? declared : (Object.keys(full.data)[0] ?? null);
  if (field) await askFields(s, command, r, full, [field]);
  const nested = nestedPath(command, full.data);
  if (nested) await askFields(s, command, r, full, nested);
}
