/** contract §7, the pipeline: stages write checksummed artifacts atomically into the run dir; paths stay inside their roots. */
export { confinedPath } from "./confine.ts";
export { sha256 } from "./hash.ts";
export { resolvePath, resolveWithin } from "./paths.ts";
export { RunDir, type Artifact, type ArtifactHeader, type RunDirOptions } from "./run-dir.ts";
