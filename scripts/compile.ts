/** One binary from one entry, as every build compiles it (the benchmarks compile their floor with it). */
export { compile } from "../src/author/build/compile.ts";
