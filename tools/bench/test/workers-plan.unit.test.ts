// The workers stage's plan (tools/bench/src/workers-plan.ts) and the CPU of a primary with its workers (cpu.ts).
import { describe, expect, it } from 'vitest';
import { sumTree } from '../src/cpu.js';
import { placement, ratioToOne, roundOrder, stageLoad } from '../src/workers-plan.js';

describe('placement', () => {
  it('pins N workers to cores 0..N-1 and wrk to the rest where the machine has a core to spare', () => {
    expect(placement(16, 1)).toEqual({ workers: 1, serverCores: '0', wrkCores: '1-15' });
    expect(placement(16, 8)).toEqual({ workers: 8, serverCores: '0-7', wrkCores: '8-15' });
    expect(placement(2, 1)).toEqual({ workers: 1, serverCores: '0', wrkCores: '1' });
    expect(placement(3, 2)).toEqual({ workers: 2, serverCores: '0-1', wrkCores: '2' });
  });

  it('leaves the server unpinned and wrk on the last core where it has not', () => {
    expect(placement(2, 2)).toEqual({ workers: 2, serverCores: undefined, wrkCores: '1' });
    expect(placement(16, 16)).toEqual({ workers: 16, serverCores: undefined, wrkCores: '15' });
  });
});

describe('stageLoad', () => {
  it('gives every N the same wrk: threads as the fewest cores any N leaves it, 16 connections per worker at least', () => {
    const sixteen = [1, 2, 4, 8].map((n) => placement(16, n));
    expect(stageLoad(sixteen, 50)).toEqual({ threads: 8, connections: 128 });
    expect(
      stageLoad(
        [1, 2].map((n) => placement(2, n)),
        50,
      ),
    ).toEqual({ threads: 1, connections: 50 });
  });
});

describe('roundOrder', () => {
  it('alternates the order, so each N goes first as often', () => {
    expect(roundOrder([1, 2, 4], 0)).toEqual([1, 2, 4]);
    expect(roundOrder([1, 2, 4], 1)).toEqual([4, 2, 1]);
    expect(roundOrder([1, 2, 4], 2)).toEqual([1, 2, 4]);
  });
});

describe('ratioToOne', () => {
  it('takes the ratio within each round and gives their median and spread', () => {
    const rounds = [
      new Map([
        [1, 1000],
        [2, 1800],
      ]),
      new Map([
        [1, 500],
        [2, 1000],
      ]),
      new Map([
        [1, 1000],
        [2, 1500],
      ]),
    ];
    // Pooled, 4300 / 2500 = 1.72; per round 1.8, 2.0, 1.5.
    expect(ratioToOne(rounds, 2)).toEqual({ median: 1.8, min: 1.5, max: 2, n: 3 });
  });

  it('leaves out a round that lacks either figure', () => {
    const rounds = [
      new Map([[1, 1000]]),
      new Map([[2, 900]]),
      new Map([
        [1, 1000],
        [2, 900],
      ]),
    ];
    expect(ratioToOne(rounds, 2)).toEqual({ median: 0.9, min: 0.9, max: 0.9, n: 1 });
  });
});

describe('sumTree', () => {
  it('counts a primary and every process below it, nothing beside it', () => {
    const processes = [
      { pid: 1, ppid: 0, cpuSeconds: 100 },
      { pid: 10, ppid: 1, cpuSeconds: 1.5 },
      { pid: 11, ppid: 10, cpuSeconds: 4 },
      { pid: 12, ppid: 10, cpuSeconds: 3.5 },
      { pid: 13, ppid: 11, cpuSeconds: 0.25 },
      { pid: 20, ppid: 1, cpuSeconds: 7 },
    ];
    expect(sumTree(10, processes)).toBe(9.25);
    expect(sumTree(20, processes)).toBe(7);
    expect(sumTree(99, processes)).toBeNaN();
  });
});
