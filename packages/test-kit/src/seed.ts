// Seeded randomness for tests that kill or race: the seed is printed, and PLANT_STORE_TEST_SEED replays a failing run.
import { randomInt } from 'node:crypto';

export interface SeededRandom {
  readonly seed: number;
  /** A float in [0, 1), as Math.random. */
  next(): number;
  /** A whole number from `min` to `max`, both included. */
  int(min: number, max: number): number;
}

/** A PRNG for the test `name`: seeded from PLANT_STORE_TEST_SEED when set, else at random; the seed is logged. */
export function seededRandom(name: string, env: Record<string, string | undefined> = process.env): SeededRandom {
  const given = env.PLANT_STORE_TEST_SEED;
  const seed = given === undefined || given === '' ? randomInt(2 ** 31) : Number(given);
  if (!Number.isSafeInteger(seed)) throw new TypeError(`PLANT_STORE_TEST_SEED must be a whole number, got "${given}"`);
  console.info(`${name}: seed ${seed} (replay with PLANT_STORE_TEST_SEED=${seed})`);
  // mulberry32: small, fast, and good enough to pick delays and orders.
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  return { seed, next, int: (min, max) => min + Math.floor(next() * (max - min + 1)) };
}
