/** contract §7, the pipeline: stages write checksummed artifacts atomically into the run dir; paths stay inside their roots. */
export { sweepTemps, writeAtomic } from "./atomic.ts";
export { confinedPath, pinRoot } from "./confine.ts";
export { sha256 } from "./hash.ts";
export { nextCommands } from "./next.ts";
export { resolvePath, resolveWithin } from "./paths.ts";
export { RunDir, type Artifact, type ArtifactHeader, type RunDirOptions } from "./run-dir.ts";
