import { runMain } from "../../src/kit/index.ts";
import gate from "./tool.ts";

await runMain(gate);
