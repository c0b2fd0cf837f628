// `pnpm bench:ab`'s options and arithmetic (src/ab-args.ts): the outside method's defaults, the errors a wrong
// option gets, the order rotating per round, and the ratios A/B per round.
import { describe, expect, it } from 'vitest';
import { abOrder, abRatios, parseAbArgs } from '../src/ab-args.js';

const A = 'http://127.0.0.1:5301';
const B = 'http://127.0.0.1:5302';

describe('parseAbArgs', () => {
  it('takes the outside method by default: 3 warm-up runs of 3 s, 3 rounds of 5 s, 50 connections on core 1', () => {
    expect(parseAbArgs(['--a', A, '--b', B])).toEqual({
      a: A,
      b: B,
      scenario: 'get',
      path: '/plants?limit=100',
      tokens: [],
      headers: [],
      rounds: 3,
      seconds: 5,
      warmUpRuns: 3,
      warmUpSeconds: 3,
      connections: 50,
      core: '1',
      together: false,
    });
  });

  it('reads every option, headers repeated, pids included', () => {
    const options = parseAbArgs([
      ...['--a', A, '--b', B, '--path', '/plants?limit=10'],
      ...['--header', 'authorization: Bearer x', '--header', 'accept: application/json'],
      ...['--rounds', '5', '--seconds', '2', '--warm-up', '2x4', '--connections', '10', '--core', '1,2'],
      ...['--a-pid', '123', '--b-pid', '456', '--together'],
    ]);
    expect(options).toMatchObject({
      path: '/plants?limit=10',
      headers: ['authorization: Bearer x', 'accept: application/json'],
      rounds: 5,
      seconds: 2,
      warmUpRuns: 2,
      warmUpSeconds: 4,
      connections: 10,
      core: '1,2',
      aPid: 123,
      bPid: 456,
      together: true,
    });
  });

  it('takes the mixed workload with its principals, and a token for get', () => {
    expect(parseAbArgs(['--a', A, '--b', B, '--scenario', 'mixed', '--token', 't1', '--token', 't2'])).toMatchObject({
      scenario: 'mixed',
      tokens: ['t1', 't2'],
    });
    expect(parseAbArgs(['--a', A, '--b', B, '--token', 't1'])).toMatchObject({ scenario: 'get', tokens: ['t1'] });
  });

  it('refuses what it cannot run', () => {
    expect(() => parseAbArgs(['--a', A, '--b', B, '--scenario', 'create'])).toThrow('--scenario is get or mixed');
    expect(() => parseAbArgs(['--a', A, '--b', B, '--scenario', 'mixed'])).toThrow('--scenario mixed needs --token');
    expect(() => parseAbArgs(['--a', A, '--b', B, '--scenario', 'mixed', '--token', 't', '--path', '/x'])).toThrow(
      "--path and --header are the get scenario's",
    );
    expect(() => parseAbArgs(['--a', A, '--b', B, '--token', 'two words'])).toThrow('not a token');
    expect(() => parseAbArgs(['--a', A])).toThrow('--a and --b are both needed');
    expect(() => parseAbArgs(['--a', A, '--b', `${B}/plants`])).toThrow('not a server URL');
    expect(() => parseAbArgs(['--a', A, '--b', B, '--path', 'plants'])).toThrow('--path starts with /');
    expect(() => parseAbArgs(['--a', A, '--b', B, '--header', 'no colon'])).toThrow('not a header');
    expect(() => parseAbArgs(['--a', A, '--b', B, '--warm-up', '3'])).toThrow('--warm-up is RUNSxSECONDS');
    expect(() => parseAbArgs(['--a', A, '--b', B, '--rounds', '0'])).toThrow('--rounds takes a whole number');
    expect(() => parseAbArgs(['--a', A, '--b', B, '--nope'])).toThrow();
  });
});

describe('the A/B arithmetic', () => {
  it('rotates who goes first every round', () => {
    expect([0, 1, 2].map(abOrder)).toEqual([
      ['a', 'b'],
      ['b', 'a'],
      ['a', 'b'],
    ]);
  });

  it('takes each ratio per round and gives the median (min-max); RSS and CPU only with both pids', () => {
    const run = (requestsPerSec: number, p99Ms: number, maxRssMb: number, cpuUsPerRequest: number) => ({
      requestsPerSec,
      p99Ms,
      maxRssMb,
      cpuUsPerRequest,
    });
    const rounds = [
      { a: run(900, 2, 110, 40), b: run(1000, 1, 100, 20) },
      { a: run(500, 3, 120, 30), b: run(1000, 2, 100, 20) },
      { a: run(1100, 1, 130, 22), b: run(1000, 1, 100, 20) },
    ];
    expect(abRatios(rounds, true)).toEqual({
      requestsPerSec: { median: 0.9, min: 0.5, max: 1.1, n: 3 },
      p99: { median: 1.5, min: 1, max: 2, n: 3 },
      rss: { median: 1.2, min: 1.1, max: 1.3, n: 3 },
      cpu: { median: 1.5, min: 1.1, max: 2, n: 3 },
    });
    expect(abRatios(rounds, false).rss).toBeUndefined();
    expect(abRatios(rounds, false).cpu).toBeUndefined();
  });
});
