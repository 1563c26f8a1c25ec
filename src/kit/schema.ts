/**
 * The schema language a tool declares its flags and results in: zod v4's
 * mini API, re-exported so that a tool and the kit always share one zod (a
 * second copy would make a tool's schemas foreign to the kit's compiler).
 * In a built binary the build swaps it for the stand-in: schemas compile out.
 */
export * from "zod/mini";
