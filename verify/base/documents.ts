/**
 * Where a tool's SKILL.md and spec.yaml are, in order: the folder `--share`
 * names (only when told); what the binary prints itself (its describe
 * document lists the flag, e.g. `"documents": {"SKILL.md": "seo --skill"}`);
 * a tool repository's root (the current folder, when its spec.yaml has
 * contract_version and names no other tool); the `share/<tool>/` folder
 * beside the binary.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { parse as parseYaml } from "yaml";
import type { Subject } from "./subject.ts";
import type { DescribeDoc } from "./schemas.ts";

export type DocumentFile = "SKILL.md" | "spec.yaml";

export interface Found {
  readonly text: string;
  /** Where it came from, for evidence: a path, or the command that printed it. */
  readonly where: string;
}

export interface Documents {
  get(file: DocumentFile): Promise<Found | { missing: string }>;
}

const readIf = (path: string): Found | null =>
  existsSync(path) ? { text: readFileSync(path, "utf8"), where: path } : null;

/**
 * Whether the current folder is the tool's repository: its spec.yaml has
 * contract_version (the one key the contract defines) and names no other
 * tool (by `name:` or `tool:`, whichever it uses). A spec.yaml there that is
 * not YAML is said so (the parser's own words), not taken for another tool's.
 */
function repoRootOf(tool: string): boolean | { invalid: string } {
  let text: string;
  try {
    text = readFileSync("spec.yaml", "utf8");
  } catch {
    return false;
  }
  let spec: { contract_version?: unknown; name?: unknown; tool?: unknown } | null;
  try {
    spec = parseYaml(text);
  } catch (e) {
    return { invalid: (e as Error).message.split("\n")[0]! };
  }
  if (!spec || typeof spec !== "object" || spec.contract_version === undefined) return false;
  return [spec.name, spec.tool].every((n) => n === undefined || n === tool);
}

export function documentsOf(s: Subject, doc: DescribeDoc, share: string | null): Documents {
  const cache = new Map<DocumentFile, Promise<Found | { missing: string }>>();
  const find = async (file: DocumentFile): Promise<Found | { missing: string }> => {
    if (share)
      return (
        readIf(join(share, doc.tool, file)) ?? { missing: `no ${file} at ${join(share, doc.tool, file)} (--share)` }
      );
    const printer = (doc as { documents?: Record<string, unknown> }).documents?.[file];
    if (typeof printer === "string") {
      const flag = printer.split(/\s+/).pop()!;
      const r = await s.sandbox.run({ label: `print ${file}`, argv: [flag] });
      if (r.exit === 0 && r.stdout.trim()) return { text: r.stdout, where: `\`${printer}\`` };
      return { missing: `\`${printer}\` (listed in --describe's documents) exited ${r.exit} without printing ${file}` };
    }
    const root = repoRootOf(doc.tool);
    if (root === true) {
      const here = readIf(resolve(file));
      if (here) return here;
    }
    const beside = join(dirname(s.sandbox.binary), "share", doc.tool, file);
    const here =
      typeof root === "object"
        ? `the current folder's spec.yaml is not valid YAML (${root.invalid}), so verify cannot tell whether the folder is the tool's repository`
        : "the current folder is not its repository";
    return (
      readIf(beside) ?? {
        missing: `no ${file}: the tool does not print it (no "documents" in --describe), ${here}, and there is none at ${beside}; pass --share DIR`,
      }
    );
  };
  return {
    get(file) {
      if (!cache.has(file)) cache.set(file, find(file));
      return cache.get(file)!;
    },
  };
}
