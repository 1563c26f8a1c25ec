/** The machine's own temp folder, as it was before a test run pointed TMPDIR at its scratch folder (scratch.ts). */
export const MACHINE_TMPDIR_ENV = "AGENT_KIT_MACHINE_TMPDIR";

/** The environment for what outlives a test run (scripts/postgres.sh: its server's data stays in the machine's temp folder). */
export const machineEnv = (): Record<string, string | undefined> => ({
  ...process.env,
  TMPDIR: process.env[MACHINE_TMPDIR_ENV] ?? process.env.TMPDIR,
});
