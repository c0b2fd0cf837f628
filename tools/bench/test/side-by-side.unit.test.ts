// The headline group's bookkeeping (src/side-by-side.ts): the order rotating per round, and the figures a ratio may
// take: a side whose warm-up was not steady, an open-loop figure the generator's lag refused, and a peer that did not
// keep up with the rate never enter one (counted: a goal with only such rounds has no yardstick), nor a figure the
// generator's lag refused.
import { describe, expect, it } from 'vitest';
import { closedFigures, type Group, KEEPS_UP, openRatio, rotate } from '../src/side-by-side.js';
import { Samples } from '../src/stats.js';

const wrkRun = (requestsPerSec: number, steady: boolean) => ({
  requestsPerSec,
  p50Ms: 1,
  p99Ms: 2,
  non2xx: 0,
  maxRssMb: 100,
  requests: requestsPerSec,
  cpuSeconds: 1,
  cpuUsPerRequest: 50,
  steady,
});
const openRun = (rate: number, achievedRate: number, p99: number, lagP99: number, steady: boolean) =>
  ({ rate, achievedRate, steady, get: { p99 }, lag: { p99: lagP99 } }) as unknown as Parameters<
    Group['open']['add']
  >[1];

describe('the headline group', () => {
  it('rotates the order by one each round', () => {
    expect([0, 1, 2, 3].map((round) => rotate(['a', 'b', 'c'], round))).toEqual([
      ['a', 'b', 'c'],
      ['b', 'c', 'a'],
      ['c', 'a', 'b'],
      ['a', 'b', 'c'],
    ]);
  });

  it('marks a closed-loop figure with its warm-up steadiness', () => {
    const group: Group = { name: 'SQLite', sides: [], closed: new Samples(), open: new Samples() };
    group.closed.add('x|get', wrkRun(1000, true));
    group.closed.add('x|get', wrkRun(900, false));
    expect(closedFigures(group, 'x', 'get', (r) => r.requestsPerSec)).toEqual([
      { value: 1000, steady: true },
      { value: 900, steady: false },
    ]);
  });

  it('takes an open-loop p99 ratio only from rounds that stand: steady, the yardstick keeping up, the lag small', () => {
    const group: Group = { name: 'SQLite', sides: [], closed: new Samples(), open: new Samples() };
    const round = (a: ReturnType<typeof openRun>, b: ReturnType<typeof openRun>) => {
      group.open.add('a|0.8', a);
      group.open.add('b|0.8', b);
    };
    round(openRun(1000, 1000, 4, 0.1, true), openRun(1000, 1000, 8, 0.1, true)); // stands: 0.5
    round(openRun(1000, 1000, 4, 0.1, false), openRun(1000, 1000, 8, 0.1, true)); // a not steady
    round(openRun(1000, 1000, 4, 0.1, true), openRun(1000, KEEPS_UP * 1000 - 1, 8, 0.1, true)); // b fell behind
    round(openRun(1000, 1000, 12, 6, true), openRun(1000, 1000, 8, 0.1, true)); // over its goal, lag half of it
    round(openRun(1000, 1000, 12, 1, true), openRun(1000, 1000, 8, 0.1, true)); // over its goal, lag small: 1.5
    round(openRun(1000, 1000, 7, 5, true), openRun(1000, 1000, 8, 0.1, true)); // under its goal whatever the lag
    expect(openRatio(group, 'a', 'b', 0.8, 1)).toEqual({
      figure: { median: 0.875, min: 0.5, max: 1.5, n: 3 },
      unsteady: 1,
      refused: 1,
      behind: 1,
    });
  });
});
