/**
 * What a start-up path evaluates: the entry bundled exactly as its binary is
 * (same options, same chunks), unpacked into a folder, run by Bun with a
 * preload that lists the chunks it loaded; Bun's metafile names the modules
 * in each. In a split bundle a chunk's modules are all evaluated when the
 * chunk loads, so these are the modules a path pays for.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { bundle, type CompileOptions } from "../../src/author/build/index.ts";

const here = join(import.meta.dir, "..", "..");

export interface Bundled {
  readonly dir: string;
  readonly entry: string;
  readonly meta: Bun.BuildMetafile;
  /** The repository the entry was built from: its modules are charged to its folders. */
  readonly root: string;
}

export async function unpacked(entry: string, opts: CompileOptions = {}, root: string = here): Promise<Bundled> {
  const dir = mkdtempSync(join(tmpdir(), "bench-graph-"));
  const meta = await bundle(entry, dir, opts);
  const out = Object.entries(meta.outputs).find(([, o]) => o.entryPoint)![0];
  writeFileSync(
    join(dir, "loaded.ts"),
    `process.on("exit", () => require("node:fs").writeFileSync(process.env.BENCH_LOADED, JSON.stringify(Object.keys(require.cache))));\n`,
  );
  return { dir, entry: join(dir, out.replace(/^\.\//, "")), meta, root };
}

export interface Loaded {
  readonly chunks: number;
  readonly modules: number;
  readonly kb: number;
  /** The largest evaluated, by the bytes they put into the bundle: a package, or a folder of this repository. */
  readonly largest: readonly { readonly name: string; readonly kb: number; readonly modules: number }[];
}

/** Where a module's cost is charged: its package under node_modules, else its folder (src/kit/output, tools/seo/lib). */
export function ownerOf(input: string, root: string = here): string {
  const at = input.lastIndexOf("node_modules/");
  if (at >= 0) {
    const parts = input.slice(at + 13).split("/");
    return parts[0]!.startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0]!;
  }
  // The metafile names inputs relative to the working directory.
  const rel = relative(root, resolve(input));
  // A tool built outside this repository (a scaffolded one): charged to its own folder.
  if (rel.startsWith("../")) return rel.split("/").slice(-3, -1).join("/");
  return rel
    .split("/")
    .slice(0, rel.startsWith("src/") ? 3 : 2)
    .join("/");
}

/** Runs `argv` against the unpacked bundle and counts the modules in the chunks it loaded. */
export function loadedBy(b: Bundled, argv: readonly string[], cwd: string = b.dir): Loaded {
  const list = join(b.dir, "loaded.json");
  Bun.spawnSync([process.execPath, "--preload", join(b.dir, "loaded.ts"), b.entry, ...argv], {
    cwd,
    env: { ...process.env, BENCH_LOADED: list },
    stdout: "ignore",
    stderr: "ignore",
    stdin: "ignore",
  });
  const files = (JSON.parse(require("node:fs").readFileSync(list, "utf8")) as string[]).map((f) => relative(b.dir, f));
  const owners = new Map<string, { kb: number; modules: number }>();
  let chunks = 0;
  for (const [path, out] of Object.entries(b.meta.outputs)) {
    if (!files.includes(path.replace(/^\.\//, ""))) continue;
    chunks++;
    for (const [input, { bytesInOutput }] of Object.entries(out.inputs)) {
      const owner = ownerOf(input, b.root);
      const o = owners.get(owner) ?? { kb: 0, modules: 0 };
      o.kb += bytesInOutput / 1024;
      o.modules++;
      owners.set(owner, o);
    }
  }
  const all = [...owners.entries()].map(([name, o]) => ({ name, ...o })).sort((a, b) => b.kb - a.kb);
  return {
    chunks,
    modules: all.reduce((n, o) => n + o.modules, 0),
    kb: all.reduce((n, o) => n + o.kb, 0),
    largest: all,
  };
}
