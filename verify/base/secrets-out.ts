/**
 * contract §10, register-once secrets: a secret a service issued once may
 * leave a tool only in `meta.secrets_out`, and only from a command whose
 * --describe declares it (`secrets_out: [{ name, description }]`), under the
 * names declared, each a string. Anything else is a secret where none was
 * promised: the platform would not know to route it to its secret store.
 */
import type { Subject } from "./subject.ts";
import type { RunResult } from "./sandbox.ts";
import type { CommandDoc, Envelope } from "./schemas.ts";

export function checkSecretsOut(s: Subject, r: RunResult, env: Envelope, command: CommandDoc | null): void {
  const out = (env.meta as Record<string, unknown>).secrets_out;
  if (out === undefined) return s.findings.exercised("identity.secrets-out");
  const doc = command ?? s.doc?.commands.find((c) => c.name === env.command) ?? null;
  const declared = new Set(
    ((doc as { secrets_out?: { name?: unknown }[] } | null)?.secrets_out ?? []).map((o) => String(o.name)),
  );
  const where = `'${env.command}'`;
  if (out === null || typeof out !== "object" || Array.isArray(out))
    return void s.findings.fail(
      "identity.secrets-out",
      `${where}: meta.secrets_out is not an object of name → secret`,
      r,
    );
  const names = Object.keys(out);
  const undeclared = names.filter((n) => !declared.has(n));
  s.findings.expect(
    "identity.secrets-out",
    undeclared.length === 0,
    `${where} returns ${undeclared.join(", ")} in meta.secrets_out, which its --describe does not declare in secrets_out${declared.size ? ` (it declares ${[...declared].join(", ")})` : ""}`,
    r,
  );
  const notText = names.filter((n) => typeof (out as Record<string, unknown>)[n] !== "string");
  s.findings.expect(
    "identity.secrets-out",
    notText.length === 0,
    `${where}: meta.secrets_out.${notText[0]} is not a string`,
    r,
  );
}
