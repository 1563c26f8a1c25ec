/**
 * Artifacts are read read-only: a run dir on read-only media, and another
 * user's 0444 artifacts, are read, never refused as "cannot be read". Both
 * need root (a read-only bind mount, `runuser`); elsewhere they say why and
 * are skipped.
 */
import { afterAll, describe, expect, test } from "bun:test";
import {
  chmodSync,
  chownSync,
  copyFileSync,
  cpSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { binary, root, run } from "../helpers/bin.ts";
import { SLOW_HOOK } from "../helpers/hooks.ts";
import { MACHINE_TMPDIR_ENV } from "../helpers/machine-tmp.ts";

const cleanup: (() => void)[] = [];
afterAll(() => {
  for (const f of cleanup.splice(0).reverse()) f();
}, SLOW_HOOK);

const isRoot = process.getuid?.() === 0;
const seo = (args: string[], runDir: string) => run(binary("seo"), [...args, "--run-dir", runDir, "--json"]);

/** A run dir with the example site crawled, extracted and audited. */
async function auditedRun(dir: string): Promise<void> {
  for (const stage of [
    ["crawl", "--dir", join(root, "examples", "site"), "--base-url", "https://harbour.example"],
    ["extract"],
    ["audit"],
  ]) {
    const r = await seo(stage, dir);
    expect(r.json.error).toBeNull();
  }
}

describe("artifacts on read-only media and of another user", () => {
  test("a run dir on a read-only mount: extract and audit (--dry-run), page and finding lists all read it; a write says the file system is read-only", async () => {
    if (!isRoot)
      return console.log("not root: cannot bind-mount a folder read-only; the read-only media test is skipped");
    const src = mkdtempSync(join(tmpdir(), "ro-src-"));
    await auditedRun(src);
    const ro = mkdtempSync(join(tmpdir(), "ro-run-"));
    const mounted =
      Bun.spawnSync(["mount", "--bind", src, ro]).exitCode === 0 &&
      Bun.spawnSync(["mount", "-o", "remount,bind,ro", ro]).exitCode === 0;
    cleanup.push(() => Bun.spawnSync(["umount", "-l", ro]));
    if (!mounted) return console.log("cannot bind-mount read-only here; the read-only media test is skipped");
    for (const args of [
      ["extract", "--dry-run"],
      ["audit", "--dry-run"],
      ["page", "list"],
      ["finding", "list"],
    ]) {
      const r = await seo(args, ro);
      expect({ args, error: r.json.error }).toEqual({ args, error: null });
    }
    const before = readdirSync(ro).sort();
    const written = await seo(["extract"], ro);
    expect({ code: written.json.error.code, says: written.json.error.message.split(" (")[0] }).toEqual({
      code: "INVALID_INPUT",
      says: "the file system is read-only",
    });
    // Each stage's artifact, the pages files it names (crawl.pages.<sha>.ndjson, …) and extract's index of its
    // pages (extract.pages.<sha>.index.json), nothing added.
    expect(readdirSync(ro).sort()).toEqual(before);
    expect(before.filter((f) => f.endsWith(".json")).map((f) => f.replace(/\.[0-9a-f]{16}\./, ".<sha>."))).toEqual([
      "audit.json",
      "crawl.json",
      "extract.json",
      "extract.pages.<sha>.index.json",
    ]);
  });

  test("another user's 0444 artifacts: extract and audit, run as nobody, read them and write their own", async () => {
    if (!isRoot) return console.log("not root: cannot run as another user; the 0444 artifact test is skipped");
    // The scratch folder is private (0700): this one, in the machine's temp folder, nobody can reach.
    const base = mkdtempSync(join(process.env[MACHINE_TMPDIR_ENV] ?? "/tmp", "agent-cli-kit-other-user-"));
    cleanup.push(() => rmSync(base, { recursive: true, force: true }));
    chmodSync(base, 0o755);
    const theirs = join(base, "run");
    await auditedRun(theirs);
    for (const f of readdirSync(theirs)) chmodSync(join(theirs, f), 0o444);
    const mine = join(base, "mine");
    mkdirSync(mine);
    // crawl.json and the pages files it names: root's files, read-only, in a folder nobody owns.
    for (const f of readdirSync(theirs).filter((f) => f === "crawl.json" || f.startsWith("crawl."))) {
      cpSync(join(theirs, f), join(mine, f), { preserveTimestamps: true });
      chmodSync(join(mine, f), 0o444);
    }
    chownSync(mine, 65534, 65534);
    // The binary where nobody can run it: the repository may sit under a folder only its owner enters (a mktemp -d clone).
    const seoForNobody = join(base, "seo");
    try {
      linkSync(binary("seo"), seoForNobody);
    } catch {
      copyFileSync(binary("seo"), seoForNobody);
    }
    chmodSync(seoForNobody, 0o755);
    const asNobody = (args: string[], runDir: string) => {
      const p = Bun.spawnSync(["runuser", "-u", "nobody", "--", seoForNobody, ...args, "--run-dir", runDir, "--json"], {
        env: { PATH: process.env.PATH!, HOME: mine, TMPDIR: mine, LANG: "C.UTF-8" },
        stdout: "pipe",
        stderr: "pipe",
      });
      return JSON.parse(p.stdout.toString());
    };
    expect(asNobody(["extract"], mine).error).toBeNull();
    expect(asNobody(["audit"], mine).error).toBeNull();
    expect(asNobody(["finding", "list"], mine).data.items.length).toBeGreaterThan(0);
    // Their run dir is not theirs to write: read, never refused as unreadable.
    expect(asNobody(["extract", "--dry-run"], theirs).error).toBeNull();
    expect(asNobody(["page", "list"], theirs).error).toBeNull();
  });
});
