/**
 * The audit's findings as NDJSON beside audit.json, so no stage holds them
 * all: while the audit judges the pages, each rule's findings go to a spill
 * file of its own, in the order the pages are judged; at the end the spills
 * are joined, worst rule first, into one file written as a stage's pages are
 * (page-store.ts: aside, synced, renamed under its hash before the artifact
 * that names it), and audit.json records each rule's section of it: where
 * it starts, its bytes, line count, pages and its own sha256. A rule's
 * findings are in page order, a page's together, so `plan` reads the
 * sections it needs side by side with the pages, and `score` reads none.
 */
import { closeSync, openSync, readSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { sweepTemps } from "agent-cli-kit";
import { RULE_IDS, RULES, SEVERITY_RANK, type RuleId } from "./rules-meta.ts";
import type { Finding } from "./schemas.ts";
import type { PagesFile, PageWriter, Range } from "./page-store.ts";

/** One rule's findings in the findings file. */
export interface FindingSection extends Range {
  rule: string;
  /** How many pages (URLs) the rule found something on. */
  pages: number;
}

/** What audit.json records of its findings file. */
export interface FindingsFile extends PagesFile {
  sections: FindingSection[];
}

const SPILL = "audit.spill.ndjson";
const SPILL_FLUSH = 64 * 1024;

interface Spill {
  path: string;
  fd: number;
  buffer: string[];
  buffered: number;
  count: number;
  pages: number;
  last: string | null;
}

/** Worst first: by severity, then in the rules' own order. */
export const ruleOrder = (a: string, b: string): number =>
  SEVERITY_RANK[RULES[b as RuleId].severity] - SEVERITY_RANK[RULES[a as RuleId].severity] ||
  RULE_IDS.indexOf(a as RuleId) - RULE_IDS.indexOf(b as RuleId);

/** Each rule's findings in a temp file of its own while the audit runs (64 KiB buffered per rule). */
export class FindingSpills {
  readonly #spills = new Map<string, Spill>();

  constructor(private readonly dir: string) {
    // A killed audit's spills are swept first, as every atomic write sweeps its temps.
    sweepTemps(join(dir, SPILL));
  }

  /** Findings of one URL must come together (one page's, or one robots.txt's): `pages` counts each run of a URL once. */
  add(f: Finding): void {
    let s = this.#spills.get(f.rule);
    if (!s) {
      const path = join(this.dir, `${SPILL}.tmp-${process.pid}-${crypto.randomUUID()}`);
      s = { path, fd: openSync(path, "w+"), buffer: [], buffered: 0, count: 0, pages: 0, last: null };
      this.#spills.set(f.rule, s);
    }
    const line = `${JSON.stringify(f)}\n`;
    s.buffer.push(line);
    s.buffered += line.length;
    s.count++;
    if (f.url !== s.last) s.pages++;
    s.last = f.url;
    if (s.buffered >= SPILL_FLUSH) this.#flush(s);
  }

  #flush(s: Spill): void {
    const bytes = Buffer.from(s.buffer.join(""), "utf8");
    for (let at = 0; at < bytes.length; ) at += writeSync(s.fd, bytes, at);
    s.buffer = [];
    s.buffered = 0;
  }

  /** The rules with findings, worst first, with how many and on how many pages. */
  rules(): { rule: string; count: number; pages: number }[] {
    return [...this.#spills]
      .map(([rule, s]) => ({ rule, count: s.count, pages: s.pages }))
      .sort((a, b) => ruleOrder(a.rule, b.rule));
  }

  /** A rule's findings as JSON lines, in the order they were added. */
  *lines(rule: string): Generator<string> {
    const s = this.#spills.get(rule);
    if (!s) return;
    this.#flush(s);
    const block = Buffer.alloc(1 << 20);
    const decoder = new TextDecoder();
    let rest = "";
    for (let at = 0; ; ) {
      const n = readSync(s.fd, block, 0, block.length, at);
      if (n === 0) break;
      at += n;
      const lines = (rest + decoder.decode(block.subarray(0, n), { stream: true })).split("\n");
      rest = lines.pop()!;
      yield* lines;
    }
  }

  /** Closes and removes every spill. */
  remove(): void {
    for (const s of this.#spills.values()) {
      try {
        closeSync(s.fd);
      } catch {}
      rmSync(s.path, { force: true });
    }
    this.#spills.clear();
  }
}

/** Joins the spills, worst rule first, into the findings file; each rule's section hashed on its own. */
export function writeFindings(spills: FindingSpills, writer: PageWriter<Finding>): FindingsFile {
  const sections: FindingSection[] = [];
  for (const { rule, count, pages } of spills.rules()) {
    writer.flush();
    const offset = writer.bytes;
    const hash = new Bun.CryptoHasher("sha256");
    writer.tap = (block) => hash.update(block);
    for (const line of spills.lines(rule)) writer.writeLine(line);
    writer.flush();
    writer.tap = null;
    sections.push({ rule, offset, bytes: writer.bytes - offset, count, pages, sha256: `sha256:${hash.digest("hex")}` });
  }
  return { ...writer.finish(), sections };
}
