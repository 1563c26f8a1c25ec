/**
 * contract §10, register-once secrets: a step's `meta.secrets_out` goes to
 * the platform's secret sink (the job's `delivery.secrets_url`), signed like
 * the report, and nowhere else: the folded report never holds it (fold.ts
 * reads no `secrets_out`), so neither report.json, the receiver's store nor
 * the report's delivery does. The platform writes it to its secret store.
 */
import { KitError } from "../../kit/output/index.ts";
import { deliver, type Delivered, type DeliveryOptions } from "./deliver.ts";
import type { StepRun } from "./fold.ts";

export interface IssuedSecret {
  readonly step: number;
  readonly tool: string;
  readonly command: string;
  readonly name: string;
  readonly value: string;
}

/** Every secret the steps issued, in step order. */
export function issuedSecrets(runs: readonly StepRun[]): IssuedSecret[] {
  return runs.flatMap((r) =>
    Object.entries(r.envelope?.meta.secrets_out ?? {})
      .filter(([, value]) => typeof value === "string")
      .map(([name, value]) => ({ step: r.index, tool: r.envelope!.tool, command: r.envelope!.command, name, value })),
  );
}

/** The event type the sink receives: its own, so a sink that is also the report's receiver keeps the two apart. */
export const SECRETS_EVENT = "job.secrets_issued";

/**
 * Posts the issued secrets to the sink, signed and retried as a report is.
 * A secret issued with no sink to take it is lost (the service will not show
 * it again): that is an error the job's author must see, never a quiet drop.
 */
export async function deliverSecrets(
  sink: string | undefined,
  jobId: string,
  issued: readonly IssuedSecret[],
  o: DeliveryOptions,
): Promise<{ names: string[]; delivered: Delivered } | null> {
  if (issued.length === 0) return null;
  const names = issued.map((s) => s.name);
  if (!sink)
    throw new KitError(
      "INVALID_INPUT",
      `step ${issued[0]!.step} issued ${names.join(", ")}, a register-once secret, and the job names no secret sink: it was not kept anywhere`,
      {
        detail: { secrets: issued.map(({ step, tool, command, name }) => ({ step, tool, command, name })) },
        hint: "give the job delivery.secrets_url (the platform's secret sink), then rotate the secret at its service: it will not be shown again",
      },
    );
  const body = JSON.stringify({ job_id: jobId, event_type: SECRETS_EVENT, event_id: o.eventId, secrets: issued });
  return { names, delivered: await deliver(sink, body, o) };
}
