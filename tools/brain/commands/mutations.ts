/** apply, target list, action list: the kit's mutation commands over the notes repository. */
import { mutationCommands } from "agent-cli-kit/writes";
import { noteChanges } from "../lib/changes.ts";
import spec from "../spec.yaml";

export default mutationCommands(spec.name, noteChanges);
