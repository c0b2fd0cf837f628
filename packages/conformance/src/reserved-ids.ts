// The ids a run may write: a block of RESERVED_SIZE consecutive int64 ids picked from the seed, far beyond 2^53 so that
// every id tests exactness (doubles are 512 or more apart there), and the ledger of what the run created, per token,
// so that it deletes all of it at the end, also when interrupted.
import { INT64_MAX, INT64_MIN } from '@plant-store/contract';
import fc from 'fast-check';

/** How many ids the block holds. */
export const RESERVED_SIZE = 1n << 20n;

/**
 * How far from the block's ends the ids the run sends stay: doubles are at most 2048 apart below 2^63, so whatever a
 * deployment that reads an id as a double stores (the double, or its shortest decimal) is still in the block, where
 * cleanup may delete it.
 */
export const ROUNDING_MARGIN = 4096n;

export interface ReservedRange {
  first: bigint;
  last: bigint;
  /** True when `id` lies in the block. */
  has(id: bigint): boolean;
  /** The id at `offset` (0 to RESERVED_SIZE - 1) into the block. */
  at(offset: bigint): bigint;
  /** Ids of the block, ROUNDING_MARGIN from its ends, for generated requests. */
  arbitrary: fc.Arbitrary<bigint>;
}

/** The block for `seed`: its start drawn uniformly from the int64 ids whose magnitude is at least 2^60. */
export function reservedRange(seed: number): ReservedRange {
  // Without bias: fast-check favours the bounds, and the block would sit on INT64_MIN or INT64_MAX every time.
  const [start] = fc.sample(
    fc.noBias(
      fc.oneof(
        fc.bigInt({ min: 1n << 60n, max: INT64_MAX - RESERVED_SIZE }),
        fc.bigInt({ min: INT64_MIN, max: -(1n << 60n) - RESERVED_SIZE }),
      ),
    ),
    { seed, numRuns: 1 },
  );
  const first = start!;
  const last = first + RESERVED_SIZE - 1n;
  return {
    first,
    last,
    has: (id) => id >= first && id <= last,
    at: (offset) => first + offset,
    arbitrary: fc.bigInt({ min: first + ROUNDING_MARGIN, max: last - ROUNDING_MARGIN }),
  };
}

/** What the run created and has not deleted yet, by the token's name (`--token`, `--second-token`, ...). */
export class Ledger {
  private readonly owned = new Map<string, Set<bigint>>();
  /** `principal id` of the creates that did not carry one of the run's names (a refused create that was stored). */
  private readonly unnamed = new Set<string>();

  /** `named`: the create (or a later update) gave the plant one of the run's names (run-names.ts), by which a list
   * shows it. */
  add(principal: string, id: bigint, named = true): void {
    const ids = this.owned.get(principal) ?? new Set();
    this.owned.set(principal, ids);
    ids.add(id);
    if (named) this.unnamed.delete(`${principal} ${id}`);
    else this.unnamed.add(`${principal} ${id}`);
  }

  remove(principal: string, id: bigint): void {
    this.owned.get(principal)?.delete(id);
    this.unnamed.delete(`${principal} ${id}`);
  }

  /** The ids `principal` holds under one of the run's names, ascending. */
  namedIds(principal: string): bigint[] {
    return this.ids(principal).filter((id) => !this.unnamed.has(`${principal} ${id}`));
  }

  has(principal: string, id: bigint): boolean {
    return this.owned.get(principal)?.has(id) ?? false;
  }

  /** The ids `principal` holds, ascending. */
  ids(principal: string): bigint[] {
    return [...(this.owned.get(principal) ?? [])].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }

  /** Every principal with something left to delete. */
  principals(): string[] {
    return [...this.owned].filter(([, ids]) => ids.size > 0).map(([principal]) => principal);
  }

  get size(): number {
    let total = 0;
    for (const ids of this.owned.values()) total += ids.size;
    return total;
  }
}
