/**
 * A credential goes only to the endpoint it is issued for: the kit's
 * credential fetch against a real listener on 127.0.0.1 standing for an
 * attacker, and a real service under the declared base URL.
 */
import { afterAll, expect, test } from "bun:test";
import { Credentials } from "../../src/kit/identity/credential.ts";
import type { EnvVar } from "../../src/kit/identity/env.ts";
import { createRedactor } from "../../src/kit/identity/redact.ts";
import type { KitError } from "../../src/kit/output/errors.ts";
import { attacker } from "../helpers/attacker.ts";
import { SLOW_HOOK } from "../helpers/hooks.ts";

const TOKEN = "svc-token-0123456789abcdef0123456789";
const evil = attacker();
const service = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch: (req) => Response.json({ authorization: req.headers.get("authorization"), path: new URL(req.url).pathname }),
});
afterAll(() => {
  evil.stop();
  service.stop(true);
}, SLOW_HOOK);

const credentialOf = (v: EnvVar, env: Record<string, string>) =>
  new Credentials([v], {
    env,
    now: Date.now,
    redact: createRedactor(env, [v.name]),
    signal: new AbortController().signal,
  }).get(v.name);
const refusal = async (p: Promise<unknown>): Promise<KitError> =>
  (await p.then(
    () => null,
    (e) => e,
  )) as KitError;

test("a credential with an endpoint is sent under its base URL, and refused anywhere else: the other host gets nothing", async () => {
  const v: EnvVar = { name: "SVC_TOKEN", scope: "read", description: "t", endpoint: "SVC_API_URL" };
  const cred = credentialOf(v, { SVC_TOKEN: TOKEN, SVC_API_URL: `http://127.0.0.1:${service.port}/api` });
  expect(await (await cred.fetch(`http://127.0.0.1:${service.port}/api/records`)).json()).toEqual({
    authorization: `Bearer ${TOKEN}`,
    path: "/api/records",
  });
  for (const elsewhere of [
    `${evil.url}/records`,
    `http://127.0.0.1:${service.port}/apix/records`,
    `http://127.0.0.1:${service.port}/other`,
  ]) {
    const e = await refusal(cred.fetch(elsewhere));
    expect([e.code, e.detail?.endpoint]).toEqual(["POLICY_DENIED", "SVC_API_URL"]);
  }
  expect(evil.received()).toBe("");
});

test("a credential that declares no endpoint is sent nowhere", async () => {
  const cred = credentialOf({ name: "LOOSE_TOKEN", scope: "read", description: "t" }, { LOOSE_TOKEN: TOKEN });
  const e = await refusal(cred.fetch(`${evil.url}/x`));
  expect(e.code).toBe("POLICY_DENIED");
  expect(evil.received()).toBe("");
});
