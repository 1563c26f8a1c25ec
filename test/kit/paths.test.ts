import { describe as group, expect, test } from "bun:test";
import fc from "fast-check";
import { resolve } from "node:path";
import { KitError } from "../../src/kit/output/errors.ts";
import { resolvePath, resolveWithin } from "../../src/kit/pipeline/paths.ts";

const segment = fc.constantFrom("a", "b", "..", ".", "", "..x", "x..", " s", "é");
const path = fc
  .tuple(fc.boolean(), fc.array(segment, { maxLength: 6 }))
  .map(([absolute, parts]) => `${absolute ? "/" : ""}${parts.join("/")}`);

group("paths", () => {
  test("resolvePath agrees with node's path.resolve on POSIX", () => {
    fc.assert(
      fc.property(fc.array(path, { minLength: 1, maxLength: 4 }), (paths) =>
        expect(resolvePath(...paths)).toBe(resolve(...paths)),
      ),
    );
  });

  test("resolveWithin keeps a path strictly inside its root", () => {
    expect(resolveWithin("/site", "a/b.html", "the site")).toBe("/site/a/b.html");
    expect(resolveWithin("/site/", "sub/../a", "the site")).toBe("/site/a");
    expect(resolveWithin("/site", "..hidden", "the site")).toBe("/site/..hidden");
    for (const outside of ["../x", ".", "", "/etc/passwd", "a/../../x", "/site-other/x"])
      expect(() => resolveWithin("/site", outside, "the site")).toThrow(KitError);
  });
});
