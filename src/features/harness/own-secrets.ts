/**
 * The harness's own secrets (its signing secret, its storage's keys) are
 * never handed to a step: a job whose step's argv or input holds one, in any
 * form the redactor knows, is refused before any step runs. Other secrets of
 * the environment are the steps' own to hold and to mask.
 */
import { createRedactor } from "../../kit/identity/index.ts";
import { KitError } from "../../kit/output/index.ts";
import type { Job } from "./job.ts";

export function refuseOwnSecrets(
  job: Job,
  env: Readonly<Record<string, string | undefined>>,
  own: readonly string[],
): void {
  const mine = createRedactor(Object.fromEntries(own.map((name) => [name, env[name]])), own);
  const step = job.steps.findIndex((s) => mine.holds(JSON.stringify([s.argv, s.input ?? null])));
  if (step !== -1)
    throw new KitError("INVALID_INPUT", `step ${step} of the job holds the value of one of the harness's own secrets`, {
      detail: { step },
      hint: "a step never holds the harness's secrets: remove it from the step's argv and input",
    });
}
