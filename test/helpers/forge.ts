/** A plan item written by hand, as an agent with write access to a run dir can write one. */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { idempotencyKey, planChecksum } from "../../src/kit/mutations/plan.ts";
import { sha256 } from "../../src/kit/pipeline/hash.ts";
import { applyEdits, type Edit } from "../../tools/seo/lib/edits.ts";

/**
 * Adds an seo item to the plan in `runDir` as the only item on `file` of the
 * site folder `site`, finding the page as it is: its hashes, key, id and the
 * plan's checksum all recomputed. The item's id.
 */
export function forgeItem(
  runDir: string,
  site: string,
  file: string,
  action: string,
  params: Record<string, unknown>,
  edits: Edit[],
): string {
  const path = join(runDir, "plan.json");
  const plan = JSON.parse(readFileSync(path, "utf8"));
  const page = readFileSync(join(site, file), "utf8");
  const after = applyEdits(page, edits);
  if (typeof after !== "string") throw new Error("the forged edit does not fit the page");
  const full = { file, ...params, edits, sha256_after: sha256(after) };
  const key = idempotencyKey(plan.tool, action, plan.context, full);
  const id = `it-${key.slice("sha256:".length, "sha256:".length + 12)}`;
  plan.items = plan.items.filter((i: any) => i.params.file !== file);
  plan.items.push({
    id,
    action,
    reason: `${file}: written by hand`,
    params: full,
    idempotency_key: key,
    target_resource_ids: [file],
    preconditions: [{ target: file, version: sha256(page) }],
    projected_impact: { files: 1, bytes_changed: 1 },
  });
  const { checksum: _c, policy_version: _p, approval_id: _a, approval: _ap, ...body } = plan;
  plan.checksum = planChecksum(body);
  writeFileSync(path, JSON.stringify(plan));
  return id;
}

/** The edits that point every link whose href is written exactly `from` (double-quoted) at `to`. */
export function hrefEdits(page: string, from: string, to: string): Edit[] {
  const edits: Edit[] = [];
  const needle = `href="${from}"`;
  for (let at = page.indexOf(needle); at !== -1; at = page.indexOf(needle, at + 1))
    edits.push({ at: at + 'href="'.length, remove: from, insert: to });
  return edits;
}
