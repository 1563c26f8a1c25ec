/** The generated site seo's benchmark runs over: realistic page sizes and link structure, deterministic. */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const WORDS = (
  "harbour spade trowel hoe steel forge temper quench handle ash oak linseed soil compost winter spring harvest seed bed blade edge file angle rust oil shed boat " +
  "the a of and to in is for with on that by this from at as are be it an was or can which its when"
).split(" ");

/**
 * `pages` pages in 50 folders, each 20–100 KB (most near the low end, as on
 * real sites), with a navigation bar, paragraphs, and links to two children,
 * its neighbours and eight far pages. Some pages have what real sites have
 * wrong, so audit finds something and plan has work: one in 20 has no meta
 * description, one in 25 no viewport, one in 40 no canonical, one in 100 the
 * same title as others, one in 1,000 a link with a typo (to a 404 one edit
 * from the page it meant). Returns the HTML's total bytes.
 */
export function generate(dir: string, pages: number): number {
  let seed = 7;
  const rand = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const word = () => WORDS[Math.floor(rand() * WORDS.length)]!;
  const sentence = () => {
    const w = Array.from({ length: 8 + Math.floor(rand() * 14) }, word).join(" ");
    return `${w[0]!.toUpperCase()}${w.slice(1)}.`;
  };
  // A pool of paragraphs, so generating 100,000 pages is bounded by the disk, not by string building.
  const pool = Array.from(
    { length: 400 },
    () => `<p>${Array.from({ length: 4 + Math.floor(rand() * 5) }, sentence).join(" ")}</p>`,
  );
  const path = (i: number) => (i === 0 ? "index.html" : `s${i % 50}/p${i}.html`);
  const nav = `<nav><ul>${Array.from({ length: 30 }, (_, s) => `<li><a href="/s${s}/p${s + 50}.html">Section ${s}</a></li>`).join("")}</ul></nav>`;
  for (let s = 0; s < 50; s++) mkdirSync(join(dir, `s${s}`), { recursive: true });
  let bytes = 0;
  for (let i = 0; i < pages; i++) {
    const targets = [
      2 * i + 1,
      2 * i + 2,
      i + 1,
      i - 1,
      ...Array.from({ length: 8 }, () => Math.floor(rand() * pages)),
    ].filter((j) => j >= 0 && j < pages);
    const typo =
      i % 1000 === 500 && i + 1 < pages ? `<li><a href="/${path(i + 1).replace(/html$/, "htlm")}">next</a></li>` : "";
    const links = targets.map((j) => `<li><a href="/${path(j)}">${word()} ${word()} ${j}</a></li>`).join("") + typo;
    const size = 20_000 + Math.floor(rand() ** 3 * 80_000);
    const parts = [
      `<p>Page ${i} of the harbour's site is about ${word()} and ${word()}, for the ${word()} season.</p>`,
    ];
    let length = 0;
    while (length < size) {
      const p = pool[Math.floor(rand() * pool.length)]!;
      parts.push(p);
      length += p.length;
    }
    const title = i % 100 === 11 ? "Harbour tools and garden spades" : `${word()} ${word()} page ${i}`;
    const head = [
      `<meta charset="utf-8"><title>${title}</title>`,
      i % 20 === 3
        ? ""
        : `<meta name="description" content="About ${word()} and ${word()}, page ${i} of a generated site of ${pages} pages.">`,
      i % 25 === 7 ? "" : `<meta name="viewport" content="width=device-width, initial-scale=1">`,
      i % 40 === 9 ? "" : `<link rel="canonical" href="https://gen.example/${path(i).replace(/index\.html$/, "")}">`,
    ].join("");
    const html = `<!doctype html><html lang="en"><head>${head}</head><body><header>${nav}</header><main><h1>Page ${i}</h1>${parts.join("\n")}<ul>${links}</ul></main><footer><p>Generated for the benchmark.</p></footer></body></html>\n`;
    writeFileSync(join(dir, path(i)), html);
    bytes += Buffer.byteLength(html);
  }
  return bytes;
}
