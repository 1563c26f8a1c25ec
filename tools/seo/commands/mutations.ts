/** apply, target list, action list: the kit's mutation commands over the site's files. */
import { mutationCommands } from "agent-cli-kit/writes";
import { siteFiles } from "../lib/site-files.ts";
import spec from "../spec.yaml";

export default mutationCommands(spec.name, siteFiles);
