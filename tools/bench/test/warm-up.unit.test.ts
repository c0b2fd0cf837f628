// The warm-up rule every target shares (src/warm-up.ts): runs until two in a row agree on CPU per request and the last
// is near the lowest so far, within a cap.
import { describe, expect, it } from 'vitest';
import { cpuTrail, steadiness, warmUntilSteady } from '../src/warm-up.js';

const runsOf = (figures: number[]) => {
  let i = 0;
  return async () => ({ cpuUsPerRequest: figures[i++] ?? Number.NaN });
};

describe('warmUntilSteady', () => {
  it('stops at the first run within the tolerance of the one before', async () => {
    const warm = await warmUntilSteady(runsOf([94, 70, 62, 60, 40]), { tolerance: 0.05 });
    expect(warm.runs.map((run) => run.cpuUsPerRequest)).toEqual([94, 70, 62, 60]);
    expect(warm.steady).toBe(true);
  });

  it('always makes at least two runs, so a single figure is never taken as steady', async () => {
    const warm = await warmUntilSteady(runsOf([50, 50]), { maxRuns: 1 });
    expect(warm.runs).toHaveLength(2);
    expect(warm.steady).toBe(true);
  });

  it('goes on while two runs agree well above an earlier, lower one (both slowed by a neighbour, not steady)', async () => {
    const warm = await warmUntilSteady(runsOf([140, 67, 103, 100, 70, 68, 50]), { tolerance: 0.05 });
    expect(warm.runs.map((run) => run.cpuUsPerRequest)).toEqual([140, 67, 103, 100, 70, 68]);
    expect(warm.steady).toBe(true);
  });

  it('takes two agreeing runs a little above the lowest as steady', async () => {
    const warm = await warmUntilSteady(runsOf([90, 60, 62, 63]), { tolerance: 0.05 });
    expect(warm.runs.map((run) => run.cpuUsPerRequest)).toEqual([90, 60, 62]);
    expect(warm.steady).toBe(true);
  });

  it('gives up at the cap and says it was not steady', async () => {
    const warm = await warmUntilSteady(runsOf([100, 80, 60, 45, 30, 20, 10]), { tolerance: 0.05, maxRuns: 4 });
    expect(warm.runs).toHaveLength(4);
    expect(warm.steady).toBe(false);
  });

  it('never counts a run without a CPU figure as agreeing', async () => {
    const warm = await warmUntilSteady(runsOf([Number.NaN, Number.NaN, Number.NaN]), { maxRuns: 3 });
    expect(warm.steady).toBe(false);
  });

  it('is printed as its runs in order, and says when the cap stopped it', async () => {
    const steady = await warmUntilSteady(runsOf([52.24, 46.4, 46.5]));
    expect(`${cpuTrail(steady)}${steadiness(steady)}`).toBe('CPU per request 52.2 -> 46.4 -> 46.5 us');
    const capped = await warmUntilSteady(runsOf([100, 80]), { maxRuns: 2 });
    expect(`${cpuTrail(capped)}${steadiness(capped)}`).toBe('CPU per request 100.0 -> 80.0 us (not steady at the cap)');
  });
});
