/** robots.txt as Lighthouse's robots-txt audit validates it. */
import type { ExtractData } from "./artifacts.ts";
import type { Emit } from "./rules-common.ts";

/** Lighthouse's robots.txt validation: each line a known directive with a value of the right form, allow/disallow inside a group. */
const ROBOTS_DIRECTIVES = new Set([
  "user-agent",
  "disallow",
  "allow",
  "sitemap",
  "crawl-delay",
  "clean-param",
  "host",
  "request-rate",
  "visit-time",
  "noindex",
]);

function robotsLineProblem(name: string, value: string): string | null {
  if (!ROBOTS_DIRECTIVES.has(name)) return "Unknown directive";
  if (name === "sitemap") {
    if (!URL.canParse(value)) return "Invalid sitemap URL";
    if (!["https:", "http:", "ftp:"].includes(new URL(value).protocol)) return "Invalid sitemap URL protocol";
  }
  if (name === "user-agent" && !value) return "No user-agent specified";
  if (name === "allow" || name === "disallow") {
    if (value !== "" && value[0] !== "/" && value[0] !== "*")
      return 'Pattern should either be empty, start with "/" or "*"';
    const dollar = value.indexOf("$");
    if (dollar !== -1 && dollar !== value.length - 1) return '"$" should only be used at the end of the pattern';
  }
  return null;
}

export function robotsRules(site: ExtractData, emit: Emit): void {
  const robots = site.robots;
  if (!robots?.content) return;
  let inGroup = false;
  for (const [i, raw] of robots.content.split(/\r\n|\r|\n/).entries()) {
    const line = raw.split("#")[0]!.trim();
    if (!line) continue;
    const colon = line.indexOf(":");
    const name = colon === -1 ? "" : line.slice(0, colon).trim().toLowerCase();
    const problem = colon === -1 ? "Syntax not understood" : robotsLineProblem(name, line.slice(colon + 1).trim());
    if (problem) {
      emit(
        "robots-txt",
        robots.url,
        `line ${i + 1}: ${problem}: '${raw.trim()}'`,
        { line: i + 1, text: raw },
        `line:${i + 1}`,
      );
      continue;
    }
    if (name === "user-agent") inGroup = true;
    else if (!inGroup && (name === "allow" || name === "disallow"))
      emit(
        "robots-txt",
        robots.url,
        `line ${i + 1}: No user-agent specified: '${raw.trim()}'`,
        { line: i + 1, text: raw },
        `line:${i + 1}`,
      );
  }
}
