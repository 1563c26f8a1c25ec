/** brain: a git repository of Markdown notes, read directly and changed only through plans. */
import { defineTool } from "agent-cli-kit";
import noteCreate from "./commands/note-create.ts";
import noteDelete from "./commands/note-delete.ts";
import noteGet from "./commands/note-get.ts";
import noteList from "./commands/note-list.ts";
import noteUpdate from "./commands/note-update.ts";
import search from "./commands/search.ts";
import mutations from "./commands/mutations.ts";
import spec from "./spec.yaml";

export default defineTool({
  name: spec.name,
  version: spec.version,
  contractVersion: spec.contract_version,
  purpose: spec.purpose,
  commands: [noteList, noteGet, search, noteCreate, noteUpdate, noteDelete, ...mutations],
  // The host-agent seed's memory server, served by mcp.ts over these same commands.
  mcpProfiles: ["memory"],
});
