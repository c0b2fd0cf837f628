// The nearest of the known words to a mistyped one, for usage errors ("unknown command "serv"; did you mean serve?"):
// the fewest single-character edits (insert, delete, replace, swap two neighbours), within about 40% of the word.

function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = best;
    }
  }
  return rows[a.length]![b.length]!;
}

/** The candidate nearest to `word`, or undefined when none is near enough to be what was meant. */
export function nearestWord(word: string, candidates: Iterable<string>): string | undefined {
  const limit = Math.max(2, Math.floor(word.length * 0.4));
  let nearest: { candidate: string; distance: number } | undefined;
  for (const candidate of candidates) {
    const distance = editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (distance <= limit && (!nearest || distance < nearest.distance)) nearest = { candidate, distance };
  }
  return nearest?.candidate;
}

/** `; did you mean X?` when a candidate is near `word`, else nothing: to end a usage error's message with. */
export function didYouMean(word: string, candidates: Iterable<string>): string {
  const nearest = nearestWord(word, candidates);
  return nearest === undefined ? '' : `; did you mean ${nearest}?`;
}

/** parseArgs's message for an unknown option, naming the nearest of `options` (long names) when one is near. */
export function unknownOptionMessage(message: string, options: Iterable<string>): string {
  const unknown = /^Unknown option '(-[^']*)'/.exec(message)?.[1];
  if (unknown === undefined) return message;
  const hint = didYouMean(
    unknown,
    [...options].map((name) => `--${name}`),
  );
  return hint ? `Unknown option '${unknown}'${hint}` : message;
}
