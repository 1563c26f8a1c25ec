/** Inputs that once ended INTERNAL (exit 1) or hung, each answered with a teaching error of the right class. */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { baseEnv, binary, run } from "../helpers/bin.ts";
import { describeFromText, sentencesOf } from "../../tools/seo/lib/fixes.ts";

const tmp = (prefix: string) => mkdtempSync(join(tmpdir(), prefix));
const seo = (args: string[], opts: { cwd?: string; env?: Record<string, string>; stdin?: string } = {}) =>
  run(binary("seo"), [...args, "--json"], { ...opts, timeoutMs: 30_000 });

function gitRepo(files: Record<string, string | Uint8Array>): string {
  const repo = tmp("kb-bad-");
  mkdirSync(join(repo, "notes"));
  for (const [name, body] of Object.entries(files)) writeFileSync(join(repo, name), body);
  const git = (...a: string[]) =>
    Bun.spawnSync(["git", "-C", repo, ...a], {
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: "t",
        GIT_AUTHOR_EMAIL: "t@x.invalid",
        GIT_COMMITTER_NAME: "t",
        GIT_COMMITTER_EMAIL: "t@x.invalid",
      },
    });
  git("init", "-q", "-b", "main");
  git("add", "-A");
  git("commit", "-qm", "notes");
  return repo;
}

describe("seo", () => {
  test("plan with no --run-dir: MISSING_ARTIFACT naming the stage, not a crash writing into a removed folder", async () => {
    const r = await seo(["plan"], { cwd: tmp("plan-") });
    expect(r.code).toBe(3);
    expect(r.json.error.code).toBe("MISSING_ARTIFACT");
  });

  test("a page that links to /index.html is the same page as /: one page, one set of fixes, no duplicate items", async () => {
    const site = tmp("site-idx-");
    writeFileSync(
      join(site, "index.html"),
      `<!doctype html><html><head><title>Home of the index test site</title></head><body><h1>Home</h1><p><a href="/index.html">home again</a> <a href="/a/">a</a></p></body></html>`,
    );
    mkdirSync(join(site, "a"));
    writeFileSync(
      join(site, "a", "index.html"),
      `<!doctype html><html><head><title>A page of the index test site</title></head><body><h1>A</h1><a href="/a/index.html">self</a></body></html>`,
    );
    const runDir = join(site, "..", `${site.split("/").pop()}-run`);
    expect(
      (await seo(["crawl", "--dir", site, "--base-url", "https://idx.example/", "--run-dir", runDir])).json.data.pages,
    ).toBe(2);
    for (const stage of ["extract", "audit"]) expect((await seo([stage, "--run-dir", runDir])).code).toBe(0);
    const plan = await seo(["plan", "--run-dir", runDir]);
    expect(plan.code).toBe(0);
    expect(plan.json.data.items.filter((i: any) => i.action === "set-lang").length).toBe(2);
  });

  test("a symbolic link loop in the site folder is a page that is not there, and a loop as the folder is INVALID_INPUT", async () => {
    const site = tmp("site-loop-");
    writeFileSync(
      join(site, "index.html"),
      `<html><head><title>loop</title></head><body><a href="/loop.html">loop</a></body></html>`,
    );
    symlinkSync("loop2.html", join(site, "loop.html"));
    symlinkSync("loop.html", join(site, "loop2.html"));
    const r = await seo(["crawl", "--dir", site]);
    expect(r.code).toBe(0);
    expect(r.json.data.by_status).toEqual({ "200": 1, "404": 1 });
    const looped = join(tmp("loop-dir-"), "d");
    symlinkSync(looped, looped);
    const bad = await seo(["crawl", "--dir", looped]);
    expect([bad.code, bad.json.error.code]).toEqual([3, "INVALID_INPUT"]);
  });

  test("--params nested 100,000 deep is INVALID_PARAMS, and no error echoes more than a short prefix of what it got", async () => {
    const dir = tmp("params-");
    writeFileSync(join(dir, "deep.json"), `{"url":${"[".repeat(100_000)}${"]".repeat(100_000)}}`);
    const deep = await seo(["crawl", "--params", join(dir, "deep.json")]);
    expect([deep.code, deep.json.error.code]).toEqual([2, "INVALID_PARAMS"]);
    writeFileSync(join(dir, "wide.json"), JSON.stringify({ url: "x".repeat(50_000) }));
    const wide = await seo(["crawl", "--params", join(dir, "wide.json")]);
    expect(wide.code).toBe(2);
    expect(JSON.stringify(wide.json.error.got ?? "").length).toBeLessThanOrEqual(202);
    expect(wide.json.error.message.length).toBeLessThanOrEqual(1000);
  });

  test("a --params key named like an Object.prototype member (constructor, toString, __proto__) is UNKNOWN_FLAG with the valid keys, not a conflict with a flag never given", async () => {
    for (const key of ["constructor", "toString", "__proto__", "hasOwnProperty"]) {
      const r = await seo(["audit", "--params", "-"], { stdin: `{"${key}": 1}` });
      expect([r.code, r.json.error.code, r.json.error.got]).toEqual([2, "UNKNOWN_FLAG", key]);
      expect(r.json.error.allowed).toContain("severity");
    }
    const near = await seo(["audit", "--params", "-"], { stdin: `{"sevrity": "high"}` });
    expect([near.json.error.code, near.json.error.hint]).toEqual(["UNKNOWN_FLAG", "did you mean 'severity'?"]);
    // A switch's inline value is read against true/false only, never against an object's inherited members.
    const inline = await seo(["crawl", "--dir", tmp("site-"), "--dry-run=constructor"]);
    expect([inline.code, inline.json.error.code]).toEqual([2, "INVALID_VALUE"]);
  });

  test("a read-only TMPDIR or run dir is INVALID_INPUT naming the file system, not INTERNAL", async () => {
    const probe = Bun.spawnSync(["unshare", "-rm", "true"]);
    if (probe.exitCode !== 0)
      throw new Error("this test needs unshare(1) with user namespaces to mount a read-only folder");
    const ro = tmp("ro-");
    const inRo = (...argv: string[]) => {
      const p = Bun.spawnSync(
        [
          "unshare",
          "-rm",
          "sh",
          "-c",
          `mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && shift && exec "$@"`,
          "sh",
          ro,
          ...argv,
        ],
        { env: baseEnv({ TMPDIR: ro }), stdout: "pipe" },
      );
      return { code: p.exitCode, json: JSON.parse(p.stdout.toString()) };
    };
    const fresh = inRo(binary("seo"), "crawl", "--dir", "/nonexistent-site", "--json");
    expect(fresh.code).not.toBe(1);
    const site = tmp("site-ro-");
    writeFileSync(join(site, "index.html"), "<html><head><title>t</title></head><body>x</body></html>");
    const r = inRo(binary("seo"), "crawl", "--dir", site, "--json");
    expect([r.code, r.json.error.code]).toEqual([3, "INVALID_INPUT"]);
    expect(r.json.error.message).toContain("read-only");
    const given = inRo(binary("seo"), "crawl", "--dir", site, "--run-dir", join(ro, "run"), "--json");
    expect([given.code, given.json.error.code]).toEqual([3, "INVALID_INPUT"]);
  });

  test("the meta description builder is linear: 2 MB of text with no sentence punctuation", () => {
    const words = Array.from({ length: 300_000 }, (_, i) => `word${i % 97}`).join(" ");
    expect(describeFromText([words])!.length).toBeLessThanOrEqual(155);
    // The linear split finds exactly what the regex it replaces finds.
    for (const s of [
      "One. Two! Three? ",
      "a.b c. d",
      "no stop at all",
      "e.g. this... and that!!x y? ",
      ". . .",
      "ends.",
      "x\n.y.\tz",
    ])
      expect([...sentencesOf(s)]).toEqual(s.match(/[^.!?]+[.!?]+(\s|$)/g) ?? []);
  });
});

describe("brain", () => {
  const brain = (args: string[], repo: string) => run(binary("brain"), [...args, "--repo", repo, "--json"]);

  test("a note that is a symbolic link loop is INVALID_INPUT, and listed apart as unreadable", async () => {
    const repo = gitRepo({ "notes/ok.md": "---\ntitle: ok\n---\n\nfine\n" });
    symlinkSync("self.md", join(repo, "notes", "self.md"));
    const got = await brain(["note", "get", "--id", "self"], repo);
    expect([got.code, got.json.error.code]).toEqual([3, "INVALID_INPUT"]);
    const list = await brain(["note", "list"], repo);
    expect(list.json.data.unreadable.map((u: any) => u.id)).toEqual(["self"]);
  });

  test("a note that is not UTF-8 is refused, never rewritten with replacement characters", async () => {
    const latin1 = Buffer.from("---\ntitle: Caf\xe9\ntags: [food]\n---\n\nCaf\xe9 au lait.\n", "latin1");
    const repo = gitRepo({ "notes/cafe.md": latin1 });
    const got = await brain(["note", "get", "--id", "cafe"], repo);
    expect([got.code, got.json.error.code]).toEqual([3, "INVALID_INPUT"]);
    expect(got.json.error.message).toContain("UTF-8");
    const update = await brain(
      ["note", "update", "--id", "cafe", "--tag", "drink", "--run-dir", join(repo, "..", "run-cafe")],
      repo,
    );
    expect([update.code, update.json.error.code]).toEqual([3, "INVALID_INPUT"]);
    expect(readFileSync(join(repo, "notes", "cafe.md")).equals(latin1)).toBe(true);
  });
});

describe("harness", () => {
  test("a NUL byte in a job step's argv is INVALID_INPUT naming the word, when the job is checked: no step runs", async () => {
    const dir = tmp("job-nul-");
    mkdirSync(join(dir, "site"));
    writeFileSync(join(dir, "site", "index.html"), "<html><head><title>t</title></head><body>x</body></html>");
    const job = (id: string, second: string[]) => {
      const path = join(dir, `${id}.json`);
      const steps = [{ argv: ["seo", "crawl", "--dir", "site"] }, { argv: second }];
      writeFileSync(path, JSON.stringify({ id, run_dir: `run-${id}`, steps }));
      return run(binary("harness"), ["job", "execute", "--job", path, "--json"], { timeoutMs: 30_000 });
    };
    const nul = await job("nul", ["seo", "extract", "--x\0y"]);
    expect([nul.code, nul.json.error.code]).toEqual([3, "INVALID_INPUT"]);
    expect(nul.json.error.message).toContain("steps[1].argv[2]");
    const huge = await job("huge", ["seo", "extract", ...Array.from({ length: 40 }, () => "w".repeat(16_000))]);
    expect([huge.code, huge.json.error.code]).toEqual([3, "INVALID_INPUT"]);
    expect(huge.json.error.message).toContain("steps[1].argv");
    // Refused before the first step: it crawled nothing, and no report stands for a job that never ran.
    for (const id of ["nul", "huge"]) expect(existsSync(join(dir, `run-${id}`, "crawl.json"))).toBe(false);
  });
});
