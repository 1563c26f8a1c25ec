/**
 * What the redactor costs: every byte a tool emits passes it. A small
 * envelope and a 1 MB artifact, with no secret known and with four (each
 * cut into 16-character windows of its thirteen forms, once per process),
 * in microseconds per text: the median of the rounds, after one warm-up.
 */
import { randomBytes } from "node:crypto";
import { createRedactor } from "../../src/kit/identity/redact.ts";
import { median, table } from "./measure.ts";

const rounds = Number(process.argv[process.argv.indexOf("--rounds") + 1]) || 40;
const secret = () => randomBytes(30).toString("base64");
const ENVS = {
  "no secret": {},
  "4 secrets": { A_API_KEY: secret(), B_TOKEN: secret(), C_SECRET: secret(), D_PASSWORD: secret() },
};
const TEXTS = {
  "envelope (400 B)": JSON.stringify({
    ok: true,
    data: { items: [{ url: "https://harbour.example/", title: "Harbour tools" }] },
    meta: { schema: "seo.page.list@1", duration_ms: 12 },
  }).padEnd(400, " "),
  "artifact (1 MB)": '{"url":"https://harbour.example/page","title":"Harbour garden tools","words":312}\n'.repeat(
    12_500,
  ),
};

export function benchRedact(): void {
  const rows: (string | number)[][] = [];
  for (const [envName, env] of Object.entries(ENVS))
    for (const [textName, text] of Object.entries(TEXTS)) {
      const redact = createRedactor(env, []);
      redact(text); // the forms are computed on the first text, and the code warmed
      const times: number[] = [];
      for (let i = 0; i < rounds; i++) {
        const t = performance.now();
        redact(text);
        times.push((performance.now() - t) * 1000);
      }
      rows.push([envName, textName, Math.round(median(times))]);
    }
  console.log(`\n## Redaction: microseconds per text (median of ${rounds})\n`);
  console.log(table(["known", "text", "µs"], rows));
}

if (import.meta.main) benchRedact();
