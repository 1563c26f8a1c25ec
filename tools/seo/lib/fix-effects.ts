/**
 * What each seo fix action may change, and the check that holds an item to
 * it whatever its action is called: the item's edit is recomputed from its
 * action and params against the page as the item will find it (fix-edits.ts)
 * and must be exactly that; and no item writes markup a fix never needs (a
 * script, a style, a frame or embedded object, an event handler, a
 * javascript: URL).
 */
import { sha256 } from "agent-cli-kit";
import type { PlanItem } from "agent-cli-kit/writes";
import { applyEdits, type Edit } from "./edits.ts";
import type { FixAction } from "./fix-actions.ts";
import {
  brokenLinkEdits,
  canonicalEdits,
  canonicalRemoval,
  descriptionEdits,
  setLangEdits,
  VIEWPORT_CONTENT,
  viewportEdits,
} from "./fix-edits.ts";
import { type Document, parseDocument } from "./dom.ts";
import { forbidden } from "./forbidden-markup.ts";
import { locate, type Located } from "./source.ts";
import { type Declared, treeBeyond } from "./tree-judge.ts";

const LANG_TAG = /^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/;
const str = (v: unknown): string | null => (typeof v === "string" ? v : null);
/** A link target a fix may write: a path, or an http(s) URL; nothing that can close the attribute. */
const safeHref = (v: string): boolean =>
  /^[^"'<>\s`\\]*$/.test(v) && (!/^[a-z][a-z0-9+.-]*:/i.test(v) || /^https?:\/\//i.test(v));

interface Fix {
  readonly may: string;
  /** The edits the action makes with these params on this page; a string says why the params are not the action's. */
  edits(t: string, at: Located, params: Record<string, unknown>): Edit[] | null | string;
  /** What the edits (as the action makes them) may change in the browser's tree, and nothing else. */
  declared(params: Record<string, unknown>, edits: readonly Edit[]): Declared;
}

/** The canonicals removed, each a whole canonical link as planning removes it, at least one kept. */
function duplicateRemovals(t: string, at: Located, params: Record<string, unknown>): Edit[] | string {
  const given = params.edits as Edit[];
  const allowed = at.canonicals.map((c) => canonicalRemoval(t, c));
  const picked = given.map((e) => allowed.find((a) => a.at === e.at && a.remove === e.remove && e.insert === ""));
  if (picked.some((p) => !p)) return "it removes or writes something other than a whole duplicate canonical link";
  if (new Set(picked).size !== picked.length || picked.length >= at.canonicals.length)
    return "it would leave the page with no canonical link";
  return picked as Edit[];
}

export const FIXES: Readonly<Record<FixAction, Fix>> = {
  "set-lang": {
    may: "only the lang attribute of <html>, added where it has none, to a language tag",
    edits: (t, at, p) =>
      str(p.lang) && LANG_TAG.test(p.lang as string)
        ? setLangEdits(t, at, p.lang as string)
        : `its lang ${JSON.stringify(p.lang)?.slice(0, 80)} is not a language tag`,
    declared: (p) => ({ sets: { name: "html", attr: "lang", from: null, to: p.lang as string, count: 1 } }),
  },
  "add-viewport": {
    may: 'one <meta name="viewport"> in <head>, with the standard content',
    edits: (t, at) => viewportEdits(t, at),
    declared: () => ({ adds: { name: "meta", attrs: { name: "viewport", content: VIEWPORT_CONTENT } } }),
  },
  "add-canonical": {
    may: 'one <link rel="canonical"> in <head>, to an http(s) URL',
    edits: (t, at, p) =>
      str(p.href) && /^https?:\/\/[^\s]+$/i.test(p.href as string)
        ? canonicalEdits(t, at, p.href as string)
        : `its href ${JSON.stringify(p.href)?.slice(0, 80)} is not an http(s) URL`,
    declared: (p) => ({ adds: { name: "link", attrs: { rel: "canonical", href: p.href as string } } }),
  },
  "remove-duplicate-canonical": {
    may: 'only duplicate <link rel="canonical"> tags, removed, one kept',
    edits: duplicateRemovals,
    declared: () => ({ removesCanonicals: true }),
  },
  "add-meta-description": {
    may: 'one <meta name="description"> in <head>, its text whole sentences of the page\'s own main text',
    // The description the item writes must be one the page's main text offers (which one: the plan chose it, unique on the site);
    // any other is compared with the first it offers, and the difference named.
    edits: (t, at, p) => descriptionEdits(t, at, insertedDescription(p.edits) ?? undefined),
    declared: (_p, edits) => ({
      adds: { name: "meta", attrs: { name: "description", content: insertedDescription(edits) ?? "" } },
    }),
  },
  "fix-broken-link": {
    may: "only the href of the links naming params.from, a page the site folder does not serve, replaced by params.to, a page it serves (a target off the site waits for a person)",
    edits: (t, at, p) =>
      str(p.from) && str(p.to) !== null && safeHref(p.to as string)
        ? brokenLinkEdits(t, at, p.from as string, p.to as string)
        : `its link target ${JSON.stringify(p.to)?.slice(0, 80)} is not a path or an http(s) URL`,
    declared: (p, edits) => ({
      sets: { name: "a", attr: "href", from: p.from as string, to: p.to as string, count: edits.length },
    }),
  },
};

/** The content of the description meta an item's edits insert, attribute escapes undone; null when they insert none. */
function insertedDescription(edits: unknown): string | null {
  if (!Array.isArray(edits)) return null;
  const inserted = edits.map((e) => (typeof e?.insert === "string" ? e.insert : "")).join("");
  const m = /<meta name="description" content="([^"]*)">/.exec(inserted);
  return m
    ? m[1]!
        .replace(/&quot;/g, '"')
        .replace(/&#39;/g, "'")
        .replace(/&lt;/g, "<")
        .replace(/&gt;/g, ">")
        .replace(/&amp;/g, "&")
    : null;
}

const isEdit = (e: unknown): e is Edit => {
  const x = e as Edit;
  return (
    typeof x === "object" &&
    x !== null &&
    Number.isInteger(x.at) &&
    typeof x.remove === "string" &&
    typeof x.insert === "string"
  );
};

const show = (s: string): string => JSON.stringify(s.length > 80 ? `${s.slice(0, 80)}…` : s);

/** How the item's edits differ from what the action makes, or null when they are the same. */
function differs(action: FixAction, given: readonly Edit[], made: readonly Edit[]): string | null {
  if (given.length !== made.length) return `it makes ${given.length} edit(s) where ${action} makes ${made.length}`;
  for (const [i, g] of given.entries()) {
    const m = made[i]!;
    if (g.at !== m.at || g.remove !== m.remove || g.insert !== m.insert)
      return `edit ${i + 1} replaces ${show(g.remove)} with ${show(g.insert)} at ${g.at}, where ${action} replaces ${show(m.remove)} with ${show(m.insert)} at ${m.at}`;
  }
  return null;
}

/**
 * The text the item will find: the live file, as changed by the plan's
 * earlier items on it, up to the version the item expects; null when the
 * file is not on that path (the item cannot apply now, and is judged again
 * when it can).
 */
export function textBefore(item: PlanItem, live: string | null, plan: readonly PlanItem[]): string | null {
  const want = item.preconditions[0]?.version;
  if (live === null || !want) return null;
  let text = live;
  let version = sha256(text);
  for (const earlier of plan) {
    if (version === want) return text;
    if (earlier === item || earlier.id === item.id) return null;
    if (
      earlier.params.file !== item.params.file ||
      earlier.preconditions[0]?.version !== version ||
      !Array.isArray(earlier.params.edits)
    )
      continue;
    const next = applyEdits(text, earlier.params.edits as Edit[]);
    if (typeof next !== "string") return null;
    text = next;
    version = sha256(text);
  }
  return version === want ? text : null;
}

/** What edits made by `action` with these params do beyond it: markup no action writes, or a change in the browser's tree it does not declare. */
export function editBeyond(
  action: FixAction,
  before: string,
  after: string,
  params: Record<string, unknown>,
  edits: readonly Edit[],
  was?: Document,
): string[] {
  const banned = forbidden(edits);
  return banned.length ? banned : treeBeyond(before, after, edits, FIXES[action].declared(params, edits), was);
}

/** What the item's edit does beyond what `action` may (empty: nothing), judged against the text it will find. */
export function fixBeyond(action: FixAction, item: PlanItem, before: string | null): string[] {
  const p = item.params;
  const target = item.preconditions.length === 1 ? item.preconditions[0]!.target : null;
  if (typeof p.file !== "string" || p.file !== target)
    return [
      `it writes ${JSON.stringify(p.file)?.slice(0, 80)} but is judged and guarded as ${JSON.stringify(item.target_resource_ids)}`,
    ];
  if (!Array.isArray(p.edits) || p.edits.length === 0 || !p.edits.every(isEdit))
    return ["its edits are not a list of { at, remove, insert }"];
  const edits = p.edits as Edit[];
  const banned = forbidden(edits);
  if (banned.length) return banned;
  if (before === null) return [];
  const after = applyEdits(before, edits);
  if (typeof after !== "string") return [`edit ${after.misfit + 1} does not fit the page it will find`];
  if (sha256(after) !== p.sha256_after) return ["its sha256_after is not what its edits leave"];
  const was = parseDocument(before);
  const made = FIXES[action].edits(before, locate(before, was), p);
  if (typeof made === "string") return [made];
  if (!made) return [`${action} makes no edit to this page`];
  const diff = differs(action, edits, made);
  return diff ? [diff] : editBeyond(action, before, after, p, made, was);
}
