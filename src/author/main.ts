/**
 * The `agent-cli-kit` command. `verify …` is the verifier, the same code as
 * the compiled `verify` (contract §12's own spelling); everything else is the
 * author's tool, a kit tool like any other. `gate …` is the gate, the same
 * code as the compiled `gate` (tools/gate). `new NAME` is a person's
 * shorthand for `init --name NAME`: the contract forbids `new` as a verb.
 */
export {};

const words = process.argv.slice(2);
if (words[0] === "verify") {
  process.argv.splice(2, 1);
  await import("../../verify/main.ts");
} else if (words[0] === "gate") {
  process.argv.splice(2, 1);
  const [{ runMain }, gate] = await Promise.all([
    import("../kit/runtime/index.ts"),
    import("../../tools/gate/tool.ts"),
  ]);
  await runMain(gate.default);
} else {
  if (words[0] === "new") {
    const named = words[1] !== undefined && !words[1].startsWith("-");
    process.argv.splice(2, named ? 2 : 1, "init", ...(named ? ["--name", words[1]!] : []));
  }
  const [{ runMain }, tool] = await Promise.all([import("../kit/runtime/index.ts"), import("./tool.ts")]);
  await runMain(tool.default);
}
