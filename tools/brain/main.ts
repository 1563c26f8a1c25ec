import { runMain } from "../../src/kit/index.ts";
import brain from "./tool.ts";

await runMain(brain);
