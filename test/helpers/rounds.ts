/**
 * How many rounds a loop runs. `npm test` is a cost every change pays: a
 * loop there runs the few rounds that show the behaviour (each distinct case
 * once); `npm run soak` sets AGENT_KIT_SOAK=1 and the same tests run the
 * rounds that hunt for a rare failure.
 */
const SOAK = Boolean(process.env.AGENT_KIT_SOAK);

/** `suite` rounds under `npm test`, `soak` under `npm run soak`. */
export const rounds = (suite: number, soak: number): number => (SOAK ? soak : suite);
