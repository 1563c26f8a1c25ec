/** The TypeScript files under a folder, sorted (the build's own, shared with the layout rules). */
export { sourcesUnder } from "../src/author/build/sources.ts";
