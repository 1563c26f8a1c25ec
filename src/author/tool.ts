/** agent-cli-kit: the command a tool author runs — a new tool repository, its build, and the verifier (§12). */
import { defineTool } from "../kit/index.ts";
import build from "./commands/build.ts";
import init from "./commands/init.ts";
import { KIT_VERSION } from "./package-info.ts";

export default defineTool({
  name: "agent-cli-kit",
  version: KIT_VERSION,
  contractVersion: 0,
  purpose: "Make, build and verify command-line tools for LLM agents: `new NAME`, `build`, `verify BINARY…`.",
  commands: [init, build],
  // main.ts hands `verify …` to the verifier before the kit reads argv.
  launched: [
    {
      name: "verify",
      summary: "Verify tool binaries against the contract (the same code as the compiled verify; `verify --help`).",
      usage: "verify [flags] BINARY…",
    },
  ],
});
