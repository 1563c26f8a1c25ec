/** A new repository names the kit the way the kit was installed, so that `npm install` there fetches the same kit. */
import { expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { kitSpecFor } from "../../src/author/kit-spec.ts";

/** A project with the kit installed in its node_modules, as its package.json says. */
function project(spec: string): { dir: string; kit: string } {
  const dir = mkdtempSync(join(tmpdir(), "kit-spec-"));
  const kit = join(dir, "node_modules", "agent-cli-kit");
  mkdirSync(kit, { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ devDependencies: { "agent-cli-kit": spec } }));
  return { dir, kit };
}

test("installed from a tarball: the tarball, relative to the new repository", () => {
  const p = project("file:vendor/agent-cli-kit-0.1.0.tgz");
  expect(kitSpecFor(join(p.dir, "weather"), p.kit, "0.1.0")).toBe("file:../vendor/agent-cli-kit-0.1.0.tgz");
  expect(kitSpecFor(join(p.dir, "tools", "deep", "weather"), p.kit, "0.1.0")).toBe(
    "file:../../../vendor/agent-cli-kit-0.1.0.tgz",
  );
});

test("installed from a registry: the same range or tag", () => {
  expect(kitSpecFor("/somewhere/weather", project("~0.1.0").kit, "0.1.0")).toBe("~0.1.0");
  expect(kitSpecFor("/somewhere/weather", project("latest").kit, "0.1.0")).toBe("latest");
});

test("a folder of its own (a checkout, or a folder install npm linked): that folder", () => {
  const kit = mkdtempSync(join(tmpdir(), "kit-checkout-"));
  expect(kitSpecFor(join(kit, "..", "w"), kit, "0.1.0")).toBe(`file:../${kit.slice(kit.lastIndexOf("/") + 1)}`);
});

test("installed where no package.json says how: the kit's own version", () => {
  const dir = mkdtempSync(join(tmpdir(), "kit-spec-"));
  const kit = join(dir, "node_modules", "agent-cli-kit");
  mkdirSync(kit, { recursive: true });
  expect(kitSpecFor(join(dir, "weather"), kit, "0.1.0")).toBe("^0.1.0");
});
