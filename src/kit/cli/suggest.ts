/** "Did you mean": the nearest candidate by edit distance, if it is near enough to be a typo. */

export function editDistance(a: string, b: string): number {
  // Optimal string alignment: a swap of two neighbours is one edit, the commonest typo.
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

export function nearest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const c of candidates) {
    // An abbreviation ("sev" for "severity") is as good as a one-letter typo.
    const dist = word.length >= 3 && c.startsWith(word) ? 1 : editDistance(word, c);
    if (dist < bestDistance) {
      best = c;
      bestDistance = dist;
    }
  }
  // More than a third of the word wrong is a different word, not a typo.
  return bestDistance <= Math.max(1, Math.floor(word.length / 3)) ? best : undefined;
}
