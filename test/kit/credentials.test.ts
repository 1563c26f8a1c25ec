/**
 * The kit's credential edges in-process (contract §10): a register-once
 * secret intact in every output encoding and masked everywhere else, a JWT's
 * own expiry read, an undeclared secret refused, a refreshed token redacted.
 * The compiled-binary tests against a real token service are in
 * test/bin/credentials.test.ts.
 */
import { describe, expect, test } from "bun:test";
import { decode } from "@toon-format/toon";
import * as z from "zod/mini";
import { defineCommand, defineTool } from "../../src/kit/index.ts";
import { createRedactor } from "../../src/kit/identity/redact.ts";
import { compileTool } from "../../src/kit/compile/index.ts";
import { parseJob } from "../../src/features/harness/job.ts";
import { jwtExpiry, parseTime } from "../../src/kit/identity/expiry.ts";
import { runInProcess } from "../helpers/in-process.ts";
import { tokenServer } from "../helpers/token-server.ts";

// Credential-shaped on purpose: every pattern of the redactor would mask it anywhere but the one place it is let through.
const SECRET = "sk-issued-0123456789abcdef0123";

const tool = defineTool({
  name: "issuer",
  version: "0.0.1",
  contractVersion: 0,
  purpose: "Issues a secret once, for the kit's tests.",
  env: [
    {
      name: "ISSUER_TOKEN",
      scope: "read",
      description: "A token that expires.",
      lifetime: { expiry: "jwt", refresh: true },
    },
  ],
  commands: [
    defineCommand({
      verb: "register",
      tier: 2,
      rw: "read",
      summary: "Return a newly issued secret, and echo it where it must be masked.",
      flags: z.object({ as: z.optional(z.string()) }),
      result: z.object({ echoed: z.string() }),
      schema: "issuer.register@1",
      errors: [],
      secretsOut: [{ name: "ISSUER_CLIENT_SECRET", description: "The client's secret." }],
      async run(ctx) {
        ctx.secretOut(ctx.flags.as ?? "ISSUER_CLIENT_SECRET", SECRET);
        ctx.log.warn(`issued ${SECRET}`);
        ctx.runDir.create();
        ctx.runDir.write("issued", { secret: SECRET });
        return { echoed: `the secret is ${SECRET}` };
      },
    }),
    defineCommand({
      verb: "check",
      tier: 2,
      rw: "read",
      summary: "Read the token through the kit.",
      flags: z.object({}),
      result: z.object({ seen: z.string() }),
      schema: "issuer.check@1",
      errors: [],
      maxDuration: 3600,
      run: async (ctx) => ({ seen: await ctx.credential("ISSUER_TOKEN").token() }),
    }),
  ],
});

const jwt = (exp: number): string =>
  `eyJhbGciOiJub25lIn0.${btoa(JSON.stringify({ exp })).replace(/=+$/, "")}.c2lnbmF0dXJlLXBhcnQ`;

describe("register-once secrets", () => {
  for (const mode of ["--json", "--toon"] as const)
    test(`${mode}: the secret is in meta.secrets_out intact, once; data, stderr and the run dir's artifact are masked`, async () => {
      const r = await runInProcess(tool, [
        "register",
        mode,
        "--run-dir",
        `${process.env.TMPDIR ?? "/tmp"}/issuer-${mode.slice(2)}-${crypto.randomUUID()}`,
      ]);
      const env = mode === "--json" ? r.json : (decode(r.stdout) as any);
      expect([r.code, env.meta.secrets_out, env.data.echoed]).toEqual([
        0,
        { ISSUER_CLIENT_SECRET: SECRET },
        "the secret is [REDACTED]",
      ]);
      expect(r.stdout.split(SECRET).length - 1).toBe(1);
      expect(r.stderr).toContain("issued [REDACTED]");
      const artifact = await Bun.file(`${env.meta.run_dir}/issued.json`).text();
      expect(artifact.includes(SECRET)).toBe(false);
    });

  test("a command that returns a secret under a name it does not declare is INTERNAL, and the secret is nowhere", async () => {
    const r = await runInProcess(tool, ["register", "--as", "OTHER_SECRET", "--json"]);
    expect([r.code, r.json.error.code, r.json.meta.secrets_out]).toEqual([1, "INTERNAL", undefined]);
    expect(r.stdout + r.stderr).not.toContain(SECRET);
  });

  test("a command that declares none never has meta.secrets_out", async () => {
    const r = await runInProcess(tool, ["check", "--json"], {
      env: { ISSUER_TOKEN: jwt(Math.floor(Date.now() / 1000) + 7200) },
    });
    expect([r.code, "secrets_out" in r.json.meta]).toEqual([0, false]);
  });
});

test("SKILL.md says what a command's lifetime credentials, maximum duration and secrets out mean", () => {
  const skill = compileTool(tool).skill;
  expect(skill).toContain(
    "Register-once secrets: `ISSUER_CLIENT_SECRET` (The client's secret.), in `meta.secrets_out`",
  );
  expect(skill).toContain(
    "runs at most 3600 s: a credential that dies sooner and cannot be refreshed fails it at start (`CREDENTIAL_EXPIRED`)",
  );
  expect(skill).toContain("`ISSUER_TOKEN` (read; expires, refreshed by the kit)");
});

describe("lifetimes", () => {
  test("a JWT's own exp is its expiry; times read as unix seconds, milliseconds or RFC 3339", () => {
    expect([
      jwtExpiry(jwt(1_800_000_000)),
      jwtExpiry("not-a-jwt"),
      parseTime("1800000000"),
      parseTime("1800000000000"),
      parseTime("2027-01-15T08:00:00Z"),
      parseTime("soon"),
    ]).toEqual([
      1_800_000_000_000,
      null,
      1_800_000_000_000,
      1_800_000_000_000,
      Date.parse("2027-01-15T08:00:00Z"),
      null,
    ]);
  });

  test("a JWT dead before max_duration with no refresh path: CREDENTIAL_EXPIRED naming it, before run", async () => {
    const r = await runInProcess(tool, ["check", "--json"], {
      env: { ISSUER_TOKEN: jwt(Math.floor(Date.now() / 1000) + 600) },
    });
    expect([r.code, r.json.error.code, r.json.error.detail.credential, r.json.error.retryable]).toEqual([
      4,
      "CREDENTIAL_EXPIRED",
      "ISSUER_TOKEN",
      false,
    ]);
  });

  test("a JWT already dead, with a refresh path: refreshed at start; the new token is redacted like the first", async () => {
    const server = tokenServer();
    try {
      const t = server.issue("ISSUER_TOKEN");
      const r = await runInProcess(tool, ["check", "--json"], {
        env: {
          ISSUER_TOKEN: jwt(1),
          ISSUER_TOKEN_REFRESH_TOKEN: t.refresh_token,
          AGENT_CREDENTIAL_REFRESH_URL: server.refreshUrl,
        },
      });
      expect([r.code, r.json.data.seen, server.counts.refreshes]).toEqual([0, "[REDACTED]", 1]);
      for (const token of server.issued) expect(r.stdout).not.toContain(token);
    } finally {
      server.stop();
    }
  });

  test("the redactor masks a secret added after start-up, in its encoded forms too", () => {
    const redact = createRedactor({}, []);
    redact.add("late-secret-value-42");
    expect(
      redact(`a late-secret-value-42 b ${encodeURIComponent("late-secret-value-42")} ${btoa("late-secret-value-42")}`),
    ).toBe("a [REDACTED] b [REDACTED] [REDACTED]");
  });
});

describe("the job's secret sink", () => {
  const job = (delivery: unknown) => JSON.stringify({ id: "j", steps: [{ argv: ["seo", "audit"] }], delivery });
  test("delivery.secrets_url is the platform's secret sink, an http(s) URL; anything else in delivery is refused, naming the field", () => {
    expect(
      parseJob(job({ url: "https://p.example/r", secrets_url: "https://p.example/s" }), "/j/job.json", ["seo"])
        .delivery,
    ).toEqual({ url: "https://p.example/r", secrets_url: "https://p.example/s" });
    const refusal = (d: unknown) => {
      try {
        parseJob(job(d), "/j/job.json", ["seo"]);
        return null;
      } catch (e) {
        return [(e as { code: string }).code, (e as Error).message];
      }
    };
    expect(refusal({ url: "https://p.example/r", secrets_url: "file:///tmp/s" })).toEqual([
      "INVALID_INPUT",
      "the job's delivery.secrets_url must be an http(s) URL: the platform's secret sink",
    ]);
    expect(refusal({ url: "https://p.example/r", secret_url: "https://p.example/s" })).toEqual([
      "INVALID_INPUT",
      "the job's delivery.secret_url is not a delivery field (url, secrets_url)",
    ]);
  });
});
