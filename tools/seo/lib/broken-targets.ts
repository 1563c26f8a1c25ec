/**
 * Where a broken internal link should point: the one page path closest to
 * the path it names (edit distance at most 3, no other as close, and the
 * kit's `nearest` agreeing), found by streaming the site's paths past each
 * broken path once, so only the broken paths are held, never the site's.
 * Distances are computed only as far as 3: a path further off is "far".
 */

/** The closest a path can be for `nearest`: one that starts with the broken path is as good as one typo. */
const MAX = 3;
const FAR = MAX + 1;

/** Three rows of the distance table, reused: no allocation per pair of paths. */
let rows = [new Int32Array(64), new Int32Array(64), new Int32Array(64)];

/**
 * Optimal string alignment distance (the kit's editDistance), or FAR when it
 * is over MAX: only the cells within MAX of the diagonal are computed (any
 * other is over MAX), and it stops once two rows running are over MAX (no
 * later cell can come back under it).
 */
export function distanceAtMost3(a: string, b: string): number {
  const n = a.length;
  const m = b.length;
  if (Math.abs(n - m) > MAX) return FAR;
  if (rows[0]!.length <= m + 1) rows = rows.map(() => new Int32Array(2 * (m + 1)));
  let [before, prev, row] = rows as [Int32Array, Int32Array, Int32Array];
  for (let j = 0; j <= m; j++) prev[j] = Math.min(j, FAR);
  let prevLeast = 0;
  for (let i = 1; i <= n; i++) {
    const lo = Math.max(1, i - MAX);
    const hi = Math.min(m, i + MAX);
    row[lo - 1] = lo === 1 ? Math.min(i, FAR) : FAR;
    let least = row[lo - 1]!;
    const ai = a.charCodeAt(i - 1);
    for (let j = lo; j <= hi; j++) {
      const bj = b.charCodeAt(j - 1);
      let v = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (ai === bj ? 0 : 1));
      if (i > 1 && j > 1 && ai === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === bj)
        v = Math.min(v, before[j - 2]! + 1);
      row[j] = Math.min(v, FAR);
      if (v < least) least = v;
    }
    if (hi < m) row[hi + 1] = FAR;
    if (least > MAX && prevLeast > MAX) return FAR;
    prevLeast = least;
    [before, prev, row] = [prev, row, before];
  }
  return Math.min(prev[m]!, FAR);
}

interface Target {
  /** `nearest`'s pick so far: the first path at its least distance (a path starting with the broken one counts 1). */
  near: string | null;
  nearDistance: number;
  best: string | null;
  bestDistance: number;
  /** How close the second-closest path is: as close as the best, and there is no one best. */
  second: number;
}

export class BrokenTargets {
  readonly #targets = new Map<string, Target>();

  /** A broken link's path, to find a target for. */
  want(path: string): void {
    if (!this.#targets.has(path))
      this.#targets.set(path, { near: null, nearDistance: FAR, best: null, bestDistance: FAR, second: FAR });
  }

  get size(): number {
    return this.#targets.size;
  }

  /** A path of a page that answers 200, in the pages' order. */
  offer(path: string): void {
    for (const [broken, t] of this.#targets) {
      const d = distanceAtMost3(broken, path);
      const near = broken.length >= 3 && path.startsWith(broken) ? 1 : d;
      if (near < t.nearDistance) {
        t.near = path;
        t.nearDistance = near;
      }
      if (d < t.bestDistance) {
        t.second = t.bestDistance;
        t.best = path;
        t.bestDistance = d;
      } else if (d < t.second) t.second = d;
    }
  }

  /** The path a broken link to `path` should point at: null when none is close, or two are as close. */
  target(path: string): string | null {
    const t = this.#targets.get(path);
    if (!t || t.best === null || t.bestDistance > MAX || t.second === t.bestDistance) return null;
    // `nearest` allows fewer typos in a short path (a third of it, at least one).
    if (t.nearDistance > Math.max(1, Math.floor(path.length / 3))) return null;
    return t.near === t.best ? t.best : null;
  }
}
