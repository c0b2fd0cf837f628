// `pnpm bench:ab`'s options and its arithmetic: the outside method, so that anyone can A/B two servers already
// listening (warm each up alike, then per round measure each in turn, the order rotating; the ratio per round), and
// the same with both measured at once (--together), where the machine's drift cancels out.
import { parseArgs } from 'node:util';
import { ratioPerRound, steadyFigures } from './ratios.js';
import type { Spread } from './stats.js';

export const AB_USAGE = `Usage: pnpm bench:ab --a URL --b URL [options]

A/B of two servers already listening, by the outside method: each warmed up with R runs of S s, then per round each
measured for --seconds with wrk -t1 -c<connections> pinned to --core, the order rotating per round; the ratios A/B
are per round, summarised as median (min-max).

  --a URL, --b URL    the two servers (scheme, host and port)
  --scenario NAME     get (default): one request, --path, again and again; mixed: the bench's mixed workload (nine
                      reads in ten of a page of 10-100 plants, one create in ten, each of a principal drawn from
                      the --token list), with ids for the creates that no earlier run used
  --path PATH         get's request (default /plants?limit=100)
  --token T           a principal's token, repeatable: get sends the first as its Authorization, mixed spreads its
                      requests over all (mixed needs one at least; the servers must all accept them)
  --header 'K: V'     a request header of get, repeatable (e.g. 'authorization: Bearer ...')
  --rounds N          rounds (default 3)
  --seconds N         seconds per measured run (default 5)
  --warm-up RxS       warm-up runs x seconds per server (default 3x3)
  --connections N     wrk connections (default 50)
  --core LIST         wrk's cores, taskset's list (default 1)
  --a-pid N, --b-pid N  the servers' pids: CPU per request and peak RSS (from /proc) beside each run
  --together          load A and B at the same time in each round (one wrk each, both on --core), rather than in
                      turn: with both servers on one core, each gets its share of it, and A/B of req/s is B/A of
                      the CPU a request, measured under the same conditions for both; on a shared, noisy machine
                      it moves by a few percent where the ratios in turn move by tens (p99 then is a shared core's)`;

export interface AbOptions {
  a: string;
  b: string;
  scenario: 'get' | 'mixed';
  path: string;
  tokens: string[];
  headers: string[];
  rounds: number;
  seconds: number;
  warmUpRuns: number;
  warmUpSeconds: number;
  connections: number;
  core: string;
  aPid?: number;
  bPid?: number;
  together: boolean;
}

const positive = (name: string, text: string): number => {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} takes a whole number >= 1, not "${text}"`);
  return value;
};

/** The options of `argv`; throws with a line to show beside AB_USAGE when they are wrong. */
export function parseAbArgs(argv: string[]): AbOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      a: { type: 'string' },
      b: { type: 'string' },
      scenario: { type: 'string', default: 'get' },
      path: { type: 'string' },
      token: { type: 'string', multiple: true, default: [] },
      header: { type: 'string', multiple: true, default: [] },
      rounds: { type: 'string', default: '3' },
      seconds: { type: 'string', default: '5' },
      'warm-up': { type: 'string', default: '3x3' },
      connections: { type: 'string', default: '50' },
      core: { type: 'string', default: '1' },
      'a-pid': { type: 'string' },
      'b-pid': { type: 'string' },
      together: { type: 'boolean', default: false },
    },
  });
  if (!values.a || !values.b) throw new Error('--a and --b are both needed');
  for (const url of [values.a, values.b])
    if (!/^https?:\/\/[^/]+$/.test(url)) throw new Error(`not a server URL: ${url}`);
  const scenario = values.scenario;
  if (scenario !== 'get' && scenario !== 'mixed') throw new Error(`--scenario is get or mixed, not "${scenario}"`);
  if (scenario === 'mixed' && values.token.length === 0) throw new Error('--scenario mixed needs --token');
  if (scenario === 'mixed' && (values.path !== undefined || values.header.length > 0))
    throw new Error("--path and --header are the get scenario's (mixed makes its own requests)");
  const path = values.path ?? '/plants?limit=100';
  if (!path.startsWith('/')) throw new Error(`--path starts with /, not "${path}"`);
  for (const token of values.token) if (!/^\S+$/.test(token)) throw new Error(`not a token: "${token}"`);
  for (const header of values.header) if (!/^[^:\s]+:\s*\S/.test(header)) throw new Error(`not a header: "${header}"`);
  const warmUp = /^(\d+)x(\d+)$/.exec(values['warm-up']);
  if (!warmUp) throw new Error(`--warm-up is RUNSxSECONDS (e.g. 3x3), not "${values['warm-up']}"`);
  return {
    a: values.a,
    b: values.b,
    scenario,
    path,
    tokens: values.token,
    headers: values.header,
    rounds: positive('rounds', values.rounds),
    seconds: positive('seconds', values.seconds),
    warmUpRuns: Number(warmUp[1]),
    warmUpSeconds: positive('warm-up', warmUp[2]!),
    connections: positive('connections', values.connections),
    core: values.core,
    ...(values['a-pid'] ? { aPid: positive('a-pid', values['a-pid']) } : {}),
    ...(values['b-pid'] ? { bPid: positive('b-pid', values['b-pid']) } : {}),
    together: values.together,
  };
}

/** Who goes first in round `round` (from 0): A in even rounds, B in odd ones. */
export const abOrder = (round: number): ('a' | 'b')[] => (round % 2 === 0 ? ['a', 'b'] : ['b', 'a']);

export interface AbRun {
  requestsPerSec: number;
  p99Ms: number;
  maxRssMb: number;
  cpuUsPerRequest: number;
}

export interface AbRatios {
  requestsPerSec?: Spread;
  p99?: Spread;
  /** Only with both pids. */
  rss?: Spread;
  /** CPU time a request, only with both pids. */
  cpu?: Spread;
}

/**
 * A/B per round of req/s, p99 and (with `pids`: both servers' pids known) peak RSS and CPU a request, each the median
 * (min-max) over the rounds.
 */
export function abRatios(rounds: readonly { a: AbRun; b: AbRun }[], pids: boolean): AbRatios {
  const of = (pick: (run: AbRun) => number) =>
    ratioPerRound(steadyFigures(rounds.map((r) => pick(r.a))), steadyFigures(rounds.map((r) => pick(r.b)))).figure;
  const requestsPerSec = of((r) => r.requestsPerSec);
  const p99 = of((r) => r.p99Ms);
  const peak = pids ? of((r) => r.maxRssMb) : undefined;
  const cpu = pids ? of((r) => r.cpuUsPerRequest) : undefined;
  return {
    ...(requestsPerSec ? { requestsPerSec } : {}),
    ...(p99 ? { p99 } : {}),
    ...(peak ? { rss: peak } : {}),
    ...(cpu ? { cpu } : {}),
  };
}
