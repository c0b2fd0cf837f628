// X-RateLimit-Remaining's text, a new number on every request: made without V8's number-string cache, which keeps the
// strings String() makes (so they outlive young collections and are promoted, and a mark-compact follows every few
// seconds under load: in the open loop at 20,000 requests a second, p999 9.6-14.4 ms with String(), 4.2-5.0 with it).
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { expect, it } from 'vitest';
import { remainingText } from '../../src/http/rate-limit.js';

it('writes the count in decimal, as String does', () => {
  for (const count of [0, 1, 9, 10, 99_999, 1_000_000_000, Number.MAX_SAFE_INTEGER]) {
    expect(remainingText(count)).toBe(String(count));
  }
});

it('leaves nothing of the counts it wrote to be promoted to the old space', () => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as (options?: { type: 'minor' | 'major' }) => void;
  const oldSpace = () => getHeapSpaceStatistics().find((space) => space.space_name === 'old_space')!.space_used_size;
  // The old space's growth over four young collections while `text` writes 8,000 counts, each used once.
  const promoted = (text: (count: number) => string) => {
    gc();
    gc();
    const before = oldSpace();
    let count = 2_000_000_000;
    for (let round = 0; round < 4; round++) {
      for (let i = 0; i < 2_000; i++) if (text(count--).length !== 10) throw new Error('not a count');
      gc({ type: 'minor' });
    }
    return oldSpace() - before;
  };
  // The yardstick: String()'s strings are kept and promoted (about 190 KB of them on Node 22, 24 and 26).
  expect(promoted((count) => String(count))).toBeGreaterThan(100_000);
  expect(promoted(remainingText)).toBeLessThan(20_000);
});
