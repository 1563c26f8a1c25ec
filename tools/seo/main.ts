import { runMain } from "../../src/kit/index.ts";
import seo from "./tool.ts";

await runMain(seo);
