/**
 * What an agent's context pays for a result: bytes and tokens of real fleet
 * outputs (test/fixtures/toon/: a 50-finding list from a real documentation
 * site, a page, a describe document, a brain search, an error) as pretty
 * JSON, compact JSON and TOON, counted with the o200k_base tokenizer
 * (gpt-tokenizer).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { encode as toToon } from "@toon-format/toon";
import { encode as tokens } from "gpt-tokenizer/encoding/o200k_base";
import { table } from "./measure.ts";

const CORPUS = join(import.meta.dir, "..", "..", "test", "fixtures", "toon");

export function benchToon(): void {
  const rows: (string | number)[][] = [];
  const totals = { pretty: [0, 0], compact: [0, 0], toon: [0, 0] };
  for (const file of readdirSync(CORPUS)
    .filter((f) => f.endsWith(".json"))
    .sort()) {
    const value = JSON.parse(readFileSync(join(CORPUS, file), "utf8"));
    const forms = { pretty: JSON.stringify(value, null, 2), compact: JSON.stringify(value), toon: toToon(value) };
    const counted = Object.fromEntries(
      Object.entries(forms).map(([k, text]) => [k, [Buffer.byteLength(text), tokens(text).length]]),
    ) as Record<keyof typeof forms, number[]>;
    for (const k of Object.keys(totals) as (keyof typeof totals)[])
      totals[k] = [totals[k][0]! + counted[k][0]!, totals[k][1]! + counted[k][1]!];
    rows.push([
      file.replace(/\.json$/, ""),
      ...counted.pretty,
      ...counted.compact,
      ...counted.toon,
      `${((counted.toon[1]! / counted.compact[1]!) * 100).toFixed(0)}%`,
    ]);
  }
  rows.push([
    "all",
    ...totals.pretty,
    ...totals.compact,
    ...totals.toon,
    `${((totals.toon[1]! / totals.compact[1]!) * 100).toFixed(0)}%`,
  ]);
  console.log(`\n## TOON: bytes and tokens of real results (tokenizer: gpt-tokenizer o200k_base)\n`);
  console.log(
    table(
      ["result", "pretty B", "pretty tok", "compact B", "compact tok", "TOON B", "TOON tok", "TOON/compact tok"],
      rows,
    ),
  );
}

if (import.meta.main) benchToon();
