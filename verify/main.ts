/**
 * verify: proves, black-box, that compiled tools obey the tool contract.
 * It shares no code with the kit; it only runs the binaries it is given.
 *
 *   verify [flags] <tool-binary>…
 */
import { type Answer, isTerminal, parseArgs, UsageError } from "./args.ts";
import { envelope, VERIFY_CODES } from "./output.ts";

const started = performance.now();
const elapsed = (): number => Math.round(performance.now() - started);

async function usage(e: UsageError): Promise<number> {
  const wantsJson = process.argv.includes("--json") || !isTerminal(1);
  if (wantsJson)
    await Bun.write(
      Bun.stdout,
      envelope(null, { code: e.code, message: e.message, hint: e.hint, ...e.range }, elapsed()),
    );
  else process.stderr.write(`error ${e.code}: ${e.message}${e.hint ? `\nhint: ${e.hint}` : ""}\n`);
  return VERIFY_CODES[e.code];
}

async function main(): Promise<number> {
  let o: Answer;
  try {
    o = parseArgs(process.argv.slice(2));
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    return usage(e);
  }
  if ("print" in o) {
    await Bun.write(Bun.stdout, o.print);
    return 0;
  }
  // The run's code (the checks, their schemas, the pool) is loaded only for a run: a usage answer prints without it.
  return (await import("./run.ts")).run(o, usage, elapsed);
}

try {
  process.exitCode = await main();
} catch (e) {
  await Bun.write(
    Bun.stdout,
    envelope(null, { code: "INTERNAL", message: `verify failed: ${(e as Error).message?.split("\n")[0]}` }, 0),
  );
  process.stderr.write(`${(e as Error).stack ?? e}\n`);
  process.exitCode = 1;
}
