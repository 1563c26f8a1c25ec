import { describe, expect, test } from "bun:test";
import { createRedactor } from "../../src/kit/identity/redact.ts";
import { formsOf, WindowIndex } from "../../src/kit/identity/secret-forms.ts";
import { WindowFilter } from "../../src/kit/identity/window-filter.ts";

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

  test("a secret holding a backslash and an n (or r, t) is masked as it is and JSON-escaped", () => {
    // Found by redact-cut.test.ts's property (seed 168818116): the windows read a text with JSON's \n escapes
    // taken out, but cut the secret into windows with them in, so no window of it ever matched.
    for (const secret of ["sk-or-v1-A\\nAAAAAAAAAAAAA", "ghp_\\rxyzxyzxyzxyzxyz\\t0", "AKIA\\\\nQQQQQQQQQQQQQQQQ"]) {
      const redact = createRedactor({ OPENROUTER_API_KEY: secret }, []);
      for (const text of [`answered 401: ${secret} was refused`, JSON.stringify({ got: secret })]) {
        const out = redact(text);
        expect({ secret, out: out.includes("[REDACTED]") && !out.includes(secret.slice(4, 20)) }).toEqual({
          secret,
          out: true,
        });
      }
    }
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

  describe("a known secret in the forms an echo takes", () => {
    const KEY = "sk-or-v1-7f3a9c0e5b2d4f6a8c1e3b5d7f9a0c2e4b6d8f1a3c5e7b9d";
    const redact = createRedactor({ OPENROUTER_API_KEY: KEY }, []);
    const b64 = (s: string) => Buffer.from(s).toString("base64");
    const cases: Record<string, string> = {
      "Basic base64(api:KEY)": `Basic ${b64(`api:${KEY}`)}`,
      "base64 at each alignment": [b64(KEY), b64(`x${KEY}`), b64(`xy${KEY}`)].join(" "),
      base64url: Buffer.from(`z${KEY}`).toString("base64url"),
      "hex, both cases": `${Buffer.from(KEY).toString("hex")} ${Buffer.from(KEY).toString("hex").toUpperCase()}`,
      "upper and lower case": `${KEY.toUpperCase()} ${KEY.toLowerCase()}`,
      "the last 40, a middle slice": `${KEY.slice(-40)} and ${KEY.slice(9, 29)}`,
      "split by a space, a line break, JSON's \\n": `${KEY.slice(0, 5)} ${KEY.slice(5)} ${KEY.slice(0, 40)}\n${KEY.slice(40)} ${JSON.stringify(`${KEY.slice(0, 20)}\n${KEY.slice(20)}`)}`,
      "URL-encoded": encodeURIComponent(`${KEY}/&`),
    };
    for (const [form, text] of Object.entries(cases))
      test(`${form}: no run of 16 of its characters is left`, () => {
        const out = redact(`before ${text} after`);
        expect(out).toContain("[REDACTED]");
        const folded = out.replace(/\\n|\s+/g, "").toLowerCase();
        for (let i = 0; i + 16 <= KEY.length; i++) expect(folded).not.toContain(KEY.slice(i, i + 16).toLowerCase());
      });

    test("a 15-character slice of a key is not the key: ordinary text that shares it is left", () => {
      expect(redact(`id ${KEY.slice(9, 24)} here`)).toBe(`id ${KEY.slice(9, 24)} here`);
    });

    test("a secret in a URL's query is masked once: [REDACTED], never [REDA_…", () => {
      const hex = "9f8e7d6c5b4a39281706f5e4d3c2b1a0";
      const r = createRedactor({ CANARY_API_KEY: hex }, []);
      expect(r(`ftp://x.example/?token=${hex}&a=1`)).toBe("ftp://x.example/?token=[REDACTED]&a=1");
      expect(r(`https://u:${hex}@x.example/?key=${hex}`)).toBe("https://u:[REDACTED]@x.example/?key=[REDACTED]");
      expect(r(`Bearer ${hex}`)).toBe("Bearer [REDACTED]");
    });

    test("a mask never cuts a JSON escape in two: the text stays JSON", () => {
      const odd = 'k3y"with\\quotes/and+slashes=0123456789';
      const r = createRedactor({ ODD_SECRET: odd }, []);
      for (const text of [odd, odd.slice(2), odd.slice(0, -3), `a ${odd.slice(4, 24)} b`]) {
        const out = r(JSON.stringify({ text }));
        expect(() => JSON.parse(out)).not.toThrow();
        expect(out).toContain("[REDACTED]");
      }
    });

    test("holds() says whether a text carries a known secret, and only a known one", () => {
      expect(redact.holds(`x ${KEY.slice(3, 30).toUpperCase()} y`)).toBe(true);
      expect(redact.holds("sk-or-v1-0123456789abcdef0123456789")).toBe(false);
    });
  });
});

describe("the forms a secret is known in", () => {
  // The encoders are written out for start-up's sake; Buffer's are the reference they must agree with.
  const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");
  const urlSafe = (s: string) => s.replaceAll("+", "-").replaceAll("/", "_");
  function core(bytes: Uint8Array, shift: number): string {
    const padded = new Uint8Array(bytes.length + shift);
    padded.set(bytes, shift);
    const full = b64(padded).replace(/=+$/, "");
    const tail = (padded.length * 8) % 6;
    return full.slice(shift === 0 ? 0 : shift + 1, tail === 0 ? full.length : full.length - 1);
  }
  function reference(value: string): string[] {
    const bytes = new TextEncoder().encode(value);
    const whole = b64(bytes);
    const cores = [0, 1, 2].map((shift) => core(bytes, shift));
    const forms = [value, JSON.stringify(value).slice(1, -1), encodeURIComponent(value), whole];
    forms.push(whole.replace(/=+$/, ""), urlSafe(whole).replace(/=+$/, ""), Buffer.from(bytes).toString("hex"));
    return [...new Set([...forms, ...cores, ...cores.map(urlSafe)])].filter((f) => f.length > 0);
  }

  test("agree with Buffer's base64, base64url and hex for every length and alignment, ASCII or not", () => {
    const alphabet = [...'abcXYZ019+/=-_ é€😀\\"\n'];
    let seed = 7;
    const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % alphabet.length;
    for (let n = 0; n < 3000; n++) {
      const value = Array.from({ length: n % 41 }, () => alphabet[next()]).join("");
      expect(formsOf(value)).toEqual(reference(value));
    }
  });

  test("a secret holding a lone surrogate (a service's JSON `\\ud800`) is masked, not a crash", () => {
    const redact = createRedactor({}, []);
    const issued = JSON.parse('"tok-\\ud800-0123456789abcdef"') as string;
    redact.add(issued);
    expect(redact(`got ${issued} back`)).toBe("got [REDACTED] back");
  });

  test("text built into the binary is read for credential shapes only: the environment's secrets were not there when it was built", () => {
    const redact = createRedactor({ OPENAI_API_KEY: "sk-canary-0123456789abcdef" }, []);
    expect(redact.builtIn("an example key: sk-abcdefghijklmnop0123\n")).toBe("an example key: sk-abcde_REDACTED\n");
    expect(redact.builtIn("")).toBe("");
  });
});

describe("the native first look before the windows' hash", () => {
  // Texts made to hold windows of a form the hard way: cut anywhere, broken by every whitespace the windows skip
  // and by JSON's \n, \r, \t escapes, case flipped, beside backslash pairs, non-ASCII letters and a final sigma.
  const noise = [" ", "\t", "\n", "\r", "\u000b", "\u000c", "\u00a0", "\u2028", "\u2029", "\\n", "\\r", "\\t"];
  const around = ["\\\\", "\\N", "\\\\n", "ΣΑΣ", "İ", "K", "\\", '"', "é", ""];
  test("never rules out a text the hash finds a window in: 4,000 generated texts, ASCII and not", () => {
    let seed = 11;
    const next = (n: number) => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n;
    const secrets = [
      "sk-canary0123456789abcdefABCDEF",
      "ghp_Canary9876543210zyxwvu",
      "pa55-wörd-ÉtÉ-0123456789€x",
      "a\\nb\\tc0123456789012345",
    ];
    let found = 0;
    for (let n = 0; n < 4000; n++) {
      const secret = secrets[n % secrets.length]!;
      const forms = formsOf(secret);
      const form = forms[next(forms.length)]!;
      const from = next(Math.max(1, form.length - 15));
      let text = around[next(around.length)]!;
      for (const c of form.slice(from, from + 16 + next(8))) {
        text += next(3) === 0 ? noise[next(noise.length)]! : "";
        text += next(2) === 0 ? c.toUpperCase() : c;
      }
      text += around[next(around.length)]!;
      const filter = new WindowFilter();
      const index = new WindowIndex();
      for (const f of forms) {
        filter.take(f);
        index.add(f);
      }
      if (index.find(text).length === 0) continue;
      found++;
      expect({ text, mayHold: filter.mayHold(text) }).toEqual({ text, mayHold: true });
      expect(createRedactor({ API_TOKEN: secret }, [])(text)).not.toBe(text);
    }
    expect(found).toBeGreaterThan(2000);
  });

  test("rules out a text that holds no piece of any form, and says so without indexing", () => {
    const filter = new WindowFilter();
    for (const form of formsOf("sk-canary0123456789abcdefABCDEF")) filter.take(form);
    expect(filter.mayHold(JSON.stringify({ ok: true, data: { items: ["a page", "another page"] } }))).toBe(false);
    expect(filter.mayHold("key: SK-CANARY0123\n4567")).toBe(true);
  });
});
