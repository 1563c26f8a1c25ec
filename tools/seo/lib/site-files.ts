/**
 * seo's mutations: edits to the files of a static-site folder. A file's
 * version is the sha256 of its bytes; a write goes to a temp file beside it
 * (named after the item, so a crashed run's leftover is found and removed by
 * the next) and is renamed over the file, so a crash never leaves half a
 * page. Nothing outside the site folder is read or written, links included.
 */
import { chmodSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { confinedPath } from "agent-cli-kit";
import { KitError, sha256 } from "agent-cli-kit";
import type { ActionSpec, Effect, ExecContext, Mutations, PlanItem, ReadContext } from "agent-cli-kit/writes";
import { applyEdits, type Edit } from "./edits.ts";
import { FIX_ACTIONS, type FixAction } from "./fix-actions.ts";
import { FIXES, fixBeyond, textBefore } from "./fix-effects.ts";
import { judgeLink } from "./link-check.ts";

const rootOf = (x: Pick<ExecContext, "plan">): string => {
  const root = x.plan.context.root;
  if (typeof root !== "string")
    throw new KitError("PLAN_INVALID", "the plan does not name the site folder (context.root)");
  return root;
};

/** A file of the site the plan edits (its real path), never outside the site, through a link or otherwise. */
const fileOf = (x: Pick<ExecContext, "plan">, file: string): string => confinedPath(rootOf(x), file, "the site folder");

/** The item's own temp file beside its target: one name per item, so a re-run finds what a crash left. */
const tempOf = (real: string, key: string): string => {
  const slash = real.lastIndexOf("/");
  return `${real.slice(0, slash)}/.${real.slice(slash + 1)}.${key.replace(/^sha256:/, "").slice(0, 16)}.apply-tmp`;
};

const read = (path: string): Buffer | null => {
  try {
    return readFileSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw e;
  }
};

/** The live text of the file the item edits; null when it is absent, or when the item does not edit its own target (judged as such). */
const liveText = (item: PlanItem, x: ReadContext): string | null => {
  const file = item.params.file;
  if (typeof file !== "string" || item.preconditions.length !== 1 || item.preconditions[0]!.target !== file)
    return null;
  return read(fileOf(x, file))?.toString("utf8") ?? null;
};

/** For fix-broken-link: the link is broken and its new target answers, in the site folder as it is now. */
const linkOf = (item: PlanItem, x: ReadContext) =>
  judgeLink(rootOf(x), x.plan.context.base_url, String(item.params.file), item.params.from, item.params.to);

const effectOf = (action: FixAction): Effect => ({
  may: FIXES[action].may,
  beyond: async (item, x) => {
    const edit = fixBeyond(action, item, textBefore(item, liveText(item, x), x.plan.items));
    return edit.length > 0 || action !== "fix-broken-link" ? edit : linkOf(item, x).beyond;
  },
  ...(action === "fix-broken-link" ? { asks: async (item: PlanItem, x: ReadContext) => linkOf(item, x).asks } : {}),
});

const fileEdit: Omit<ActionSpec, "effect"> = {
  async execute(item: PlanItem, x: ExecContext) {
    const path = fileOf(x, String(item.params.file));
    const bytes = read(path);
    if (!bytes) throw new KitError("PRECONDITION_FAILED", `${item.params.file} is gone`);
    const next = applyEdits(bytes.toString("utf8"), item.params.edits as Edit[]);
    if (typeof next !== "string")
      throw new KitError(
        "PRECONDITION_FAILED",
        `${item.params.file} changed under the edit (edit ${next.misfit + 1} no longer fits)`,
      );
    if (sha256(next) !== item.params.sha256_after)
      throw new KitError("PRECONDITION_FAILED", `${item.params.file} would not end as planned`);
    const tmp = tempOf(path, x.idempotencyKey);
    try {
      writeFileSync(tmp, next);
      chmodSync(tmp, statSync(path).mode);
      await x.fence();
      // Checked again at the last moment: a link swapped in since is refused, never written through.
      renameSync(tmp, fileOf(x, String(item.params.file)));
    } catch (e) {
      rmSync(tmp, { force: true });
      throw e;
    }
    return { file: item.params.file, sha256: item.params.sha256_after };
  },
  async recover(item, x) {
    rmSync(tempOf(fileOf(x, String(item.params.file)), x.idempotencyKey), { force: true });
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
  actions: Object.fromEntries(FIX_ACTIONS.map((a) => [a, { ...fileEdit, effect: effectOf(a) }])),
  errors: ["PRECONDITION_FAILED"],
  root: "root",
};
