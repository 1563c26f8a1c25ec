/**
 * seo's mutations: edits to the files of a static-site folder. A file's
 * version is the sha256 of its bytes; a write goes aside and is renamed over
 * the file, so a crash never leaves half a page.
 */
import { readFileSync, realpathSync, renameSync, statSync, writeFileSync, chmodSync } from "node:fs";
import { KitError, resolveWithin, sha256 } from "../../../src/kit/index.ts";
import { type ActionSpec, type ExecContext, type Mutations, type PlanItem } from "../../../src/kit/writes.ts";
import { applyEdits, type Edit } from "./edits.ts";
import { FIX_ACTIONS } from "./fix-actions.ts";

const rootOf = (x: Pick<ExecContext, "plan">): string => {
  const root = x.plan.context.root;
  if (typeof root !== "string") throw new KitError("PLAN_INVALID", "the plan does not name the site folder (context.root)");
  return root;
};

/** A file of the site the plan edits, never outside it. */
const fileOf = (x: Pick<ExecContext, "plan">, file: string): string => resolveWithin(rootOf(x), file, "the site folder");

const read = (path: string): Buffer | null => {
  try {
    return readFileSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw e;
  }
};

const fileEdit: ActionSpec = {
  async execute(item: PlanItem, x: ExecContext) {
    const path = fileOf(x, String(item.params.file));
    const bytes = read(path);
    if (!bytes) throw new KitError("PRECONDITION_FAILED", `${item.params.file} is gone`);
    const next = applyEdits(bytes.toString("utf8"), item.params.edits as Edit[]);
    if (typeof next !== "string") throw new KitError("PRECONDITION_FAILED", `${item.params.file} changed under the edit (edit ${next.misfit + 1} no longer fits)`);
    if (sha256(next) !== item.params.sha256_after) throw new KitError("PRECONDITION_FAILED", `${item.params.file} would not end as planned`);
    const real = realpathSync(path);
    const tmp = `${real}.${process.pid}.tmp`;
    writeFileSync(tmp, next);
    chmodSync(tmp, statSync(real).mode);
    renameSync(tmp, real);
    return { file: item.params.file, sha256: item.params.sha256_after };
  },
  async landed(item, x) {
    const bytes = read(fileOf(x, String(item.params.file)));
    return bytes !== null && sha256(bytes) === item.params.sha256_after;
  },
};

export const siteFiles: Mutations = {
  async readTarget(target, x) {
    const bytes = read(fileOf(x, target));
    return bytes ? { version: sha256(bytes), bytes: bytes.length } : null;
  },
  actions: Object.fromEntries(FIX_ACTIONS.map((a) => [a, fileEdit])),
  errors: ["PRECONDITION_FAILED"],
};
