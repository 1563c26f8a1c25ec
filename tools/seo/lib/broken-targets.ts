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

/** Optimal string alignment distance (the kit's editDistance), or FAR when it is over MAX. */
export function distanceAtMost3(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > MAX) return FAR;
  let before = new Array<number>(b.length + 1).fill(0);
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let least = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, before[j - 2]! + 1);
      row.push(best);
      if (best < least) least = best;
    }
    // Every later row is at least this row's least (a transposition reaches back two rows: both checked).
    if (least > MAX && Math.min(...prev) > MAX) return FAR;
    before = prev;
    prev = row;
  }
  return Math.min(prev[b.length]!, FAR);
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
