// The kit's runtime is Bun's (bun:sqlite, Bun.spawn, `bun build --compile`): under any other runtime, say so plainly.
throw new Error(
  "agent-cli-kit runs on Bun (>= 1.4.4), not " +
    (typeof process === "object" && process.versions?.node ? `Node ${process.versions.node}` : "this runtime") +
    ": run your tool with `npx bun tool.ts`, build it with `npx agent-cli-kit build`, and verify any tool with `npx agent-cli-kit verify`",
);
