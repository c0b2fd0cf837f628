// The headline: per store, plant-store on its defaults and tuned, the floor (node:http writing the tuned side's very
// answer), bare Fastify (the framework's ceiling) and the Express peer, measured side by side (side-by-side.ts), and
// the goals judged on them.
import { atLeast, atMost, type Goal, goalWithin } from './goals.js';
import { ratioPerRound } from './ratios.js';
import { closedFigures, type Group, openRatio, type Side } from './side-by-side.js';
import { BARE, bareFastify, EXPRESS, expressPeer, FLOOR, floorOf, plantStoreOn } from './targets.js';

export type Store = 'SQLite' | 'PostgreSQL';

/** The open loop's rates: these shares of bare Fastify's hot read in the same round, for every side alike. */
export const LOADS = [0.5, 0.8] as const;

export const defaultsOf = (store: Store) => `plant-store, ${store}, defaults`;
export const tunedOf = (store: Store) => `plant-store, ${store}, tuned`;

export function headlineSides(store: Store): Side[] {
  return [
    { name: defaultsOf(store), target: plantStoreOn(store, 'defaults'), scenarios: ['get', 'mixed'], open: true },
    { name: tunedOf(store), target: plantStoreOn(store, 'tuned'), scenarios: ['get', 'mixed'], open: true },
    { name: FLOOR, target: (started) => floorOf(started.get(tunedOf(store))!), scenarios: ['get'], open: true },
    { name: BARE, target: bareFastify(), scenarios: ['get'], open: true },
    { name: EXPRESS, target: expressPeer(), scenarios: ['get'], open: true },
  ];
}

/** The headline goals of one store's group (`group` undefined: not run, every goal not measured). */
export function headlineGoals(store: Store, group: Group | undefined): Goal[] {
  const [defaults, tuned] = [defaultsOf(store), tunedOf(store)];
  const none = { unsteady: 0 };
  const ratio = (
    a: string,
    b: string,
    scenario: 'get' | 'mixed',
    pick: (run: { requestsPerSec: number; p99Ms: number; maxRssMb: number }) => number,
  ) => (group ? ratioPerRound(closedFigures(group, a, scenario, pick), closedFigures(group, b, scenario, pick)) : none);
  const rps = (run: { requestsPerSec: number }) => run.requestsPerSec;
  const p99 = (run: { p99Ms: number }) => run.p99Ms;
  const rss = (run: { maxRssMb: number }) => run.maxRssMb;
  const open = (a: string, b: string, load: number, factor: number) =>
    group ? openRatio(group, a, b, load, factor) : none;
  return [
    goalWithin(`${store}: hot read, defaults / tuned, req/s`, ratio(defaults, tuned, 'get', rps), atLeast(0.9)),
    goalWithin(`${store}: mixed, defaults / tuned, req/s`, ratio(defaults, tuned, 'mixed', rps), atLeast(0.9)),
    goalWithin(`${store}: hot read, tuned / floor, req/s`, ratio(tuned, FLOOR, 'get', rps), atLeast(0.9)),
    goalWithin(`${store}: hot read, tuned p99 / floor's`, ratio(tuned, FLOOR, 'get', p99), atMost(1.5)),
    {
      label: `${store}: hot read, defaults / floor, req/s (not a goal)`,
      figure: ratio(defaults, FLOOR, 'get', rps),
      pass: null,
    },
    {
      label: `${store}: hot read, tuned / bare Fastify, req/s (not a goal)`,
      figure: ratio(tuned, BARE, 'get', rps),
      pass: null,
    },
    goalWithin(
      `${store}: peak RSS under the hot read, defaults / bare Fastify`,
      ratio(defaults, BARE, 'get', rss),
      atMost(1.1),
    ),
    goalWithin(
      `${store}: peak RSS under the hot read, tuned / bare Fastify`,
      ratio(tuned, BARE, 'get', rss),
      atMost(1.1),
    ),
    ...LOADS.flatMap((load): Goal[] => [
      goalWithin(
        `${store}: open loop at ${load * 100}% of bare Fastify, defaults p99 / bare Fastify's`,
        open(defaults, BARE, load, 1),
        atMost(1),
      ),
      goalWithin(
        `${store}: open loop at ${load * 100}% of bare Fastify, defaults p99 / Express peer's where it keeps up`,
        open(defaults, EXPRESS, load, 0.5),
        atMost(0.5),
      ),
    ]),
  ];
}
