/**
 * The declared-tools manifest (dist/tools.json), exercised entry by entry the
 * way an agent host runs it: spawn the argv (no shell), write the input as
 * one JSON object to stdin, read the envelope from stdout. Inputs carry what a
 * shell would mangle: quotes, newlines, `$(…)`, and 100 KB of text.
 */
import { describe, expect, test } from "bun:test";
import { cpSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { baseEnv, binary, dist, root } from "../helpers/bin.ts";
import { toolNames } from "../../scripts/build.ts";
import { commitAll } from "../helpers/notes-repo.ts";

const manifest = JSON.parse(readFileSync(join(dist, "tools.json"), "utf8")) as {
  schema: number;
  tools: Record<
    string,
    {
      description: string;
      input_schema: any;
      command: string[];
      env?: Record<string, string>;
      side_effect: string;
      timeout_ms: number;
    }
  >;
};
const HOSTILE = `it's "quoted"\nnext line; $(rm -rf /) \`id\` & | > <`;

async function call(name: string, input: Record<string, unknown>, env: Record<string, string> = {}) {
  const [program, ...args] = manifest.tools[name]!.command;
  const p = Bun.spawn([binary(program!), ...args], {
    stdin: new Blob([JSON.stringify(input)]),
    stdout: "pipe",
    stderr: "pipe",
    env: baseEnv(env),
  });
  const [out, code] = await Promise.all([new Response(p.stdout).text(), p.exited]);
  return { code, json: JSON.parse(out) };
}

describe("dist/tools.json", () => {
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the title names the manifest's literal ${VAR}
  test("one entry per command but a person's act, verb first, an argv that reads JSON on stdin, credentials only as ${VAR}", () => {
    expect(manifest.schema).toBe(1);
    const describes = toolNames().map((t) => JSON.parse(Bun.spawnSync([binary(t), "--describe"]).stdout.toString()));
    expect(Object.keys(manifest.tools).length).toBe(
      describes.reduce((n, d) => n + d.commands.filter((c: { person?: boolean }) => !c.person).length, 0),
    );
    expect(
      describes.flatMap((d) =>
        d.commands.filter((c: { person?: boolean }) => c.person).map((c: { name: string }) => `${d.tool} ${c.name}`),
      ),
    ).toEqual(["gate approve", "gate init"]);
    for (const [name, t] of Object.entries(manifest.tools)) {
      expect(name).toMatch(/^[a-z]+_[a-z]+(_[a-z_]+)?$/);
      expect(t.command.slice(-4)).toEqual(["--params", "-", "--json", "--no-input"]);
      expect(t.input_schema.type).toBe("object");
      for (const [k, v] of Object.entries(t.env ?? {})) expect(v).toBe(`\${${k}}`);
      expect(["read", "external"]).toContain(t.side_effect);
    }
    expect(manifest.tools.brain_search!.side_effect).toBe("read");
    expect(manifest.tools.brain_create_note!.side_effect).toBe("external");
  });

  test("every entry answers one envelope for its plausible input, through stdin", async () => {
    const run = mkdtempSync(join(tmpdir(), "manifest-run-"));
    cpSync(join(root, "test", "fixtures", "seo-run"), run, { recursive: true });
    for (const [name, t] of Object.entries(manifest.tools)) {
      const input: Record<string, unknown> = { "run-dir": run };
      for (const key of t.input_schema.required ?? [])
        input[key] =
          t.input_schema.properties[key].enum?.[0] ?? (t.input_schema.properties[key].type === "integer" ? 1 : "x");
      const r = await call(name, input);
      expect({ name, envelope: typeof r.json.ok, internal: r.code === 1 }).toEqual({
        name,
        envelope: "boolean",
        internal: false,
      });
    }
  }, 120_000);

  test("input a shell would mangle arrives byte for byte: quotes, newlines, $(…) and a 100 KB body", async () => {
    const dir = mkdtempSync(join(tmpdir(), "manifest-kb-"));
    const repo = join(dir, "repo");
    cpSync(join(root, "test", "fixtures", "brain", "kb"), repo, { recursive: true });
    commitAll(repo);
    const body = `${HOSTILE}\n${"lorem ipsum $(whoami) ".repeat(4700)}`;
    expect(body.length).toBeGreaterThan(100_000);
    const planned = await call("brain_create_note", {
      repo,
      title: HOSTILE.replace(/\n/g, " "),
      body,
      "run-dir": join(dir, "run"),
    });
    expect(planned.json.error).toBeNull();
    const plan = JSON.parse(readFileSync(join(dir, "run", "plan.json"), "utf8"));
    expect(plan.items[0].params.body).toBe(body);
    expect(plan.items[0].params.title).toBe(HOSTILE.replace(/\n/g, " "));
    const found = await call("brain_search", { repo, query: HOSTILE });
    expect(found.json.ok).toBe(true);
  }, 120_000);
});
