import { describe, expect, test } from "bun:test";
import { createRedactor } from "../../src/kit/identity/redact.ts";

describe("redaction", () => {
  test("replaces the values of secret-looking variables whole, wherever they appear", () => {
    const redact = createRedactor({ MY_API_KEY: "canary-4f9a1c77e0", HOME: "/home/me", PWD: "/work" }, []);
    expect(redact("key=canary-4f9a1c77e0 in /home/me")).toBe("key=[REDACTED] in /home/me");
  });

  test("a large text (an artifact) is redacted the same way, and a value of a name that marks no secret is left", () => {
    const redact = createRedactor(
      { MY_API_KEY: "canary-4f9a1c77e0", HOME: "/home/me/someone", LEDGER_URL: "postgres://app:hunter22@db/x" },
      ["LEDGER_URL"],
    );
    const filler = "<p>harbour spade trowel</p>\n".repeat(5000);
    expect(redact(`${filler}key=canary-4f9a1c77e0 at postgres://app:hunter22@db/x in /home/me/someone${filler}`)).toBe(
      `${filler}key=[REDACTED] at [REDACTED] in /home/me/someone${filler}`,
    );
    expect(redact(`${filler}AKIAIOSFODNN7EXAMPLE and password=hunter2hunter2${filler}`)).toBe(
      `${filler}AKIAIOSF_REDACTED and password=hunter2_REDACTED${filler}`,
    );
  });

  test("replaces declared credentials even when the name does not look secret", () => {
    const redact = createRedactor({ LEDGER_URL: "postgres://app:hunter22@db/x" }, ["LEDGER_URL"]);
    expect(redact("connecting to postgres://app:hunter22@db/x")).toBe("connecting to [REDACTED]");
  });

  test("finds a secret inside JSON, where quotes and backslashes are escaped", () => {
    const secret = 'pa"ss\\word-1234';
    const redact = createRedactor({ DB_PASSWORD: secret }, []);
    const text = JSON.stringify({ note: `uses ${secret}` });
    expect(redact(text)).toBe(JSON.stringify({ note: "uses [REDACTED]" }));
  });

  test("masks credential-shaped strings, keeping a short prefix", () => {
    const redact = createRedactor({}, []);
    expect(redact("AKIAIOSFODNN7EXAMPLE")).toBe("AKIAIOSF_REDACTED");
    expect(redact("key sk-or-v1-0123456789abcdef0123")).toBe("key sk-or-v1_REDACTED");
    expect(redact("ghp_abcdefghijklmnopqrstuvwxyz0123456789")).toBe("ghp_abcd_REDACTED");
    expect(redact("xoxb-1234567890-abcdefghij")).toBe("xoxb-123_REDACTED");
    expect(redact("Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.payload")).toBe(
      "Authorization: Bearer eyJhbGci_REDACTED",
    );
    expect(redact("https://b.s3.amazonaws.com/o?X-Amz-Signature=abcdef0123456789&x=1")).toBe(
      "https://b.s3.amazonaws.com/o?X-Amz-Signature=abcdef01_REDACTED&x=1",
    );
    expect(redact("password=hunter2hunter2")).toBe("password=hunter2_REDACTED");
    expect(redact("postgres://user:s3cretpw@host/db")).toBe("postgres://user:s3cr_REDACTED@host/db");
  });

  test("leaves JSON valid and ordinary words alone", () => {
    const redact = createRedactor({ SHORT_TOKEN: "abc" }, []);
    const text = JSON.stringify({ token: null, llm_tokens: 12, api_key: "sk-abcdefghijklmnopqrstuv", note: "abc" });
    const out = redact(text);
    expect(JSON.parse(out)).toEqual({ token: null, llm_tokens: 12, api_key: "sk-abcde_REDACTED", note: "abc" });
  });
});
