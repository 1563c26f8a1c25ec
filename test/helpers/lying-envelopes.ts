/** Step envelopes that lie, for the harness's fuzz tests: seeded, each with whether it should make a successful step. */
const CRAWL = {
  source: { kind: "dir", location: "/s" },
  start_url: "https://h.example/",
  pages: 1,
  by_status: { "200": 1 },
  redirected: 0,
  skipped: {},
  robots_txt: false,
  dry_run: false,
  artifact: "/r/crawl.json",
};
const ok = () => ({
  ok: true,
  contract_version: 0,
  tool: "seo",
  command: "crawl",
  data: structuredClone(CRAWL),
  error: null,
  meta: { schema: "seo.crawl@1", cost_usd: 0.01, llm_tokens: 5, outcome: null, next: ["seo extract"] },
});
const failed = () => ({
  ok: false,
  contract_version: 0,
  tool: "seo",
  command: "audit",
  data: null,
  error: { code: "UPSTREAM_ERROR", message: "down", retryable: true },
  meta: { schema: "seo.audit@1", cost_usd: 0.02, llm_tokens: 0, outcome: null },
});

const meta = (e: any, key: string, value: unknown) =>
  typeof e.meta === "object" && e.meta !== null ? ((e.meta[key] = value), e) : e;

/** Each mutation, and whether it breaks the envelope (the step must then fail with the path named). */
const MUTATIONS: [string, (e: any) => unknown, boolean][] = [
  ["cost as a string", (e) => meta(e, "cost_usd", "1e9"), true],
  ["a negative cost", (e) => meta(e, "cost_usd", -4.88), true],
  ["a huge cost", (e) => meta(e, "cost_usd", 1e308), true],
  ["a cost of null", (e) => meta(e, "cost_usd", null), true],
  ["a fine cost", (e) => meta(e, "cost_usd", 0.123456789), false],
  ["tokens as a word", (e) => meta(e, "llm_tokens", "lots"), true],
  ["negative tokens", (e) => meta(e, "llm_tokens", -100), true],
  ["fractional tokens", (e) => meta(e, "llm_tokens", 1.5), true],
  ["huge tokens", (e) => meta(e, "llm_tokens", 2 ** 60), true],
  ["a foreign schema", (e) => meta(e, "schema", "brain.note.list@1"), true],
  ["a schema that is a number", (e) => meta(e, "schema", 42), true],
  ["another tool's name", (e) => ((e.tool = "brain"), e), true],
  ["ok as a string", (e) => ((e.ok = "true"), e), true],
  ["meta missing", (e) => (delete e.meta, e), true],
  ["next not a list", (e) => meta(e, "next", "seo extract"), true],
  ["an error beside ok", (e) => ((e.error = { code: "X", message: "m" }), e), true],
  ["data on a failure", (e) => (e.ok ? e : ((e.data = { a: 1 }), e)), true],
  ["an error without a code", (e) => (e.ok ? e : ((e.error = { message: "m" }), e)), true],
  ["a number, not an envelope", () => 42, true],
  ["a list, not an envelope", () => [], true],
];

export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A random envelope: ok or failed, with 0 to 2 mutations; whether it should be a successful step. */
export function envelope(rnd: () => number): { value: unknown; succeeds: boolean } {
  const good = rnd() < 0.6;
  let value: unknown = good ? ok() : failed();
  let broken = false;
  for (let n = Math.floor(rnd() * 3); n > 0; n--) {
    const [, mutate, breaks] = MUTATIONS[Math.floor(rnd() * MUTATIONS.length)]!;
    if (typeof value !== "object" || value === null || Array.isArray(value)) break;
    const before = JSON.stringify(value);
    value = mutate(value);
    if (JSON.stringify(value) !== before) broken ||= breaks;
  }
  return { value, succeeds: good && !broken };
}
