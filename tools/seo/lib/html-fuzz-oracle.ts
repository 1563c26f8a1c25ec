/**
 * What a browser would run or load from a page, read with parse5 on its own
 * (independent of the gate's judgement, tree-judge.ts): every script and its
 * text, every event handler, style, srcdoc, http-equiv, every URL attribute
 * with a javascript:, data: or vbscript: URL, every element that runs or
 * embeds something, template contents included. An edit the gate approves
 * must leave this list as it was.
 */
import { parse } from "parse5";

const EXECUTABLE_ELEMENTS = new Set([
  "script",
  "style",
  "iframe",
  "frame",
  "frameset",
  "object",
  "embed",
  "applet",
  "base",
  "form",
  "portal",
  "animate",
  "set",
  "animatetransform",
  "animatemotion",
  "use",
  "foreignobject",
  "handler",
  "listener",
]);
const URL_ATTRS = new Set([
  "href",
  "src",
  "action",
  "formaction",
  "data",
  "poster",
  "background",
  "codebase",
  "srcset",
]);
const RISKY_ATTRS = new Set(["style", "srcdoc", "http-equiv", "formaction", "autofocus", "is"]);
const SCHEME = /^(javascript|vbscript|data):/;

/** A URL as a browser reads its scheme: leading spaces and control characters, and tabs and newlines anywhere, dropped. */
const schemeOf = (v: string): string =>
  v
    .replace(/^[\u0000-\u0020]+/, "")
    .replace(/[\t\n\r]/g, "")
    .toLowerCase();

interface P5 {
  nodeName: string;
  tagName?: string;
  namespaceURI?: string;
  attrs?: { name: string; prefix?: string; value: string }[];
  childNodes?: P5[];
  content?: P5;
  value?: string;
}

function factsOf(el: P5, path: string, out: string[]): void {
  const name = el.tagName!.toLowerCase();
  const attrs = el.attrs ?? [];
  const rel = attrs.find((a) => a.name === "rel")?.value.toLowerCase() ?? "";
  const refresh = name === "meta" && attrs.some((a) => a.name === "http-equiv");
  const stylesheet = name === "link" && /stylesheet|import|preload|modulepreload/.test(rel);
  if (EXECUTABLE_ELEMENTS.has(name) || refresh || stylesheet || el.namespaceURI?.endsWith("MathML")) {
    const text = (el.childNodes ?? []).map((c) => c.value ?? "").join("");
    out.push(`${path} <${name}> ${JSON.stringify(attrs.map((a) => [a.name, a.value]))} ${JSON.stringify(text)}`);
  }
  for (const a of attrs) {
    const n = a.name.toLowerCase();
    if (n.startsWith("on") || RISKY_ATTRS.has(n)) out.push(`${path} ${n}=${JSON.stringify(a.value)}`);
    else if (URL_ATTRS.has(n) && SCHEME.test(schemeOf(a.value))) out.push(`${path} ${n}=${JSON.stringify(a.value)}`);
  }
}

/** The page's executable facts, each with its element's path of tag names, sorted. */
export function executableFacts(html: string): string[] {
  const out: string[] = [];
  const walk = (n: P5, path: string): void => {
    for (const c of n.childNodes ?? []) {
      if (!c.tagName) continue;
      const here = `${path}/${c.tagName}`;
      factsOf(c, here, out);
      walk(c, here);
      if (c.content) walk(c.content, `${here}#content`);
    }
  };
  walk(parse(html) as unknown as P5, "");
  return out.sort();
}
