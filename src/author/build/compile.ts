/**
 * One binary from one entry: `bun build --compile`, with the options that
 * make a command-line tool start fast. Every build uses it: the fleet's,
 * `agent-cli-kit build` in a tool's own repository, and the benchmarks.
 */
import { join } from "node:path";

const kit = join(import.meta.dir, "..", "..", "kit");

/** In a built tool, `zod/mini` is the kit's stand-in: the binary checks with the validators generated from its schemas. */
const zodStandIn: Bun.BunPlugin = {
  name: "zod-stand-in",
  setup(build) {
    build.onResolve({ filter: /^zod\/mini$/ }, () => ({ path: join(kit, "compile", "zod-stand-in.ts") }));
  },
};

export interface CompileOptions {
  readonly zodStandIn?: boolean;
  /**
   * A test build, whose applies honour AGENT_KIT_FAILPOINT (src/kit/mutations/failpoints.ts).
   * A release build defines the switch false, so the failpoint code is dead, dropped, and its variable's name absent.
   */
  readonly failpoints?: boolean;
  /** Bun's compile target (`bun-linux-arm64`, `bun-darwin-arm64`, …); the host's when absent. */
  readonly target?: string;
}

/** The bundle every build makes: one per binary, or unpacked into a folder to see what each start-up loads. */
function buildConfig(entry: string, opts: CompileOptions) {
  return {
    entrypoints: [entry],
    plugins: opts.zodStandIn ? [zodStandIn] : [],
    define: { KIT_FAILPOINTS: opts.failpoints ? "true" : "false" },
    // ESM bytecode: the default CJS bytecode builds "fine" and then breaks consola at run time.
    format: "esm",
    minify: true,
    target: "bun",
    splitting: true,
  } satisfies Bun.BuildConfig;
}

export async function compile(entry: string, outfile: string, opts: CompileOptions = {}): Promise<void> {
  const result = await Bun.build({
    ...buildConfig(entry, opts),
    bytecode: true,
    // A tool must not pick up a .env or bunfig.toml from whatever folder it is run in.
    // A CLI's start-up is run-once code: compiling it with the JIT costs more than it saves.
    compile: {
      outfile,
      autoloadDotenv: false,
      autoloadBunfig: false,
      jitPolicy: 10,
      ...(opts.target ? { target: opts.target as Bun.Build.CompileTarget } : {}),
    },
  });
  if (!result.success)
    throw new AggregateError(result.logs, `build of ${entry} failed: ${result.logs.map(String).join("; ")}`);
}

/**
 * The same bundle as `compile`, written into a folder as chunks, with Bun's
 * metafile (which modules went into which chunk): the benchmark runs it to
 * name what each start-up path evaluates.
 */
export async function bundle(entry: string, outdir: string, opts: CompileOptions = {}): Promise<Bun.BuildMetafile> {
  const result = await Bun.build({ ...buildConfig(entry, opts), outdir, metafile: true });
  if (!result.success || !result.metafile)
    throw new AggregateError(result.logs, `bundle of ${entry} failed: ${result.logs.map(String).join("; ")}`);
  return result.metafile;
}
