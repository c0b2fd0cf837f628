// A printed seed replays the run: the same seed gives the same sequence, and PLANT_STORE_TEST_SEED is honoured.
import { describe, expect, it, vi } from 'vitest';
import { seededRandom } from '../src/seed.js';

describe('seededRandom', () => {
  it('replays the same sequence from the seed it prints', () => {
    const log = vi.spyOn(console, 'info').mockImplementation(() => {});
    const first = seededRandom('replay', {});
    const drawn = Array.from({ length: 5 }, () => first.int(100, 500));
    const again = seededRandom('replay', { PLANT_STORE_TEST_SEED: String(first.seed) });
    expect(Array.from({ length: 5 }, () => again.int(100, 500))).toEqual(drawn);
    expect(log).toHaveBeenCalledWith(`replay: seed ${first.seed} (replay with PLANT_STORE_TEST_SEED=${first.seed})`);
    log.mockRestore();
  });

  it('draws within bounds and refuses a seed that is not a whole number', () => {
    vi.spyOn(console, 'info').mockImplementation(() => {});
    const random = seededRandom('bounds', { PLANT_STORE_TEST_SEED: '42' });
    for (let i = 0; i < 1000; i++) {
      const value = random.next();
      expect(value).toBeGreaterThanOrEqual(0);
      expect(value).toBeLessThan(1);
    }
    expect(() => seededRandom('bad', { PLANT_STORE_TEST_SEED: 'abc' })).toThrow('must be a whole number');
    vi.restoreAllMocks();
  });
});
