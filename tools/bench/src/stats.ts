// A figure measured once per round, summarised as the median with its spread (min-max) over the rounds.
export interface Spread {
  median: number;
  min: number;
  max: number;
  n: number;
}

export function spread(values: number[]): Spread | undefined {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (sorted.length === 0) return undefined;
  const middle = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
  return { median, min: sorted[0]!, max: sorted.at(-1)!, n: sorted.length };
}

/** `1234 (1200-1300)`: the median and the spread, with `digits` decimals. */
export function show(figure: Spread | undefined, digits = 0): string {
  if (!figure) return 'n/a';
  const f = (value: number) => value.toFixed(digits);
  return figure.n === 1 ? f(figure.median) : `${f(figure.median)} (${f(figure.min)}-${f(figure.max)})`;
}

/** Groups samples by a key, keeping first-seen order. */
export class Samples<T> {
  readonly #groups = new Map<string, T[]>();

  add(key: string, sample: T): void {
    const list = this.#groups.get(key) ?? [];
    list.push(sample);
    this.#groups.set(key, list);
  }

  get(key: string): T[] {
    return this.#groups.get(key) ?? [];
  }

  keys(): string[] {
    return [...this.#groups.keys()];
  }
}
