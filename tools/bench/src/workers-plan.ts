// The workers stage's plan (`pnpm bench --workers 1,2`): where `plant-store serve --workers N` and wrk run, the load
// every N gets, the order of each round, and the ratio of each N to one worker. Pure, so a test can check it.
import { type Spread, spread } from './stats.js';

export interface Placement {
  workers: number;
  /** The server's cores for `taskset -c` (its primary and workers), or undefined: not pinned, every core. */
  serverCores: string | undefined;
  /** wrk's cores for `taskset -c`. */
  wrkCores: string;
}

/** `0-3`, or `5` for a single core. */
const cpuList = (from: number, to: number) => (from === to ? `${from}` : `${from}-${to}`);

/**
 * N workers on cores 0..N-1 with wrk on the rest, when the machine has a core to spare beyond them; otherwise the
 * server unpinned (the kernel spreads its processes) and wrk on the last core, which the server then shares.
 */
export function placement(cores: number, workers: number): Placement {
  if (cores >= workers + 1)
    return { workers, serverCores: cpuList(0, workers - 1), wrkCores: cpuList(workers, cores - 1) };
  return { workers, serverCores: undefined, wrkCores: `${cores - 1}` };
}

const coreCount = (list: string) => {
  const [from, to = from] = list.split('-').map(Number) as [number, number?];
  return to - from + 1;
};

/**
 * The same load for every N, so the ratios compare servers, not generators: wrk threads as many as the fewest cores
 * any N leaves it (8 at most), and at least 16 connections per worker of the largest N.
 */
export function stageLoad(placements: Placement[], connections: number): { threads: number; connections: number } {
  const threads = Math.min(8, ...placements.map((p) => coreCount(p.wrkCores)));
  const most = Math.max(...placements.map((p) => p.workers));
  return { threads, connections: Math.max(connections, 16 * most, threads) };
}

/**
 * The most warm-up runs each N gets (of the stage's warm-up length, 2 s by default), against WARM_UP_MAX_RUNS (6) for
 * the other targets: every worker fills a page cache of its own, so N workers start N times as cold. On the 2-core
 * machine two workers' CPU per request fell over 2 s runs 335 -> 236 -> 173 -> 160 -> 154 -> 152 us and was steady
 * from the 5th run on (one worker: 257 -> 160 -> 106 -> 109 -> 101 us, steady from the 3rd), so the old cap of 6
 * measured two workers before they were steady in one round of two ("not steady at the cap"), and the stage read
 * 0.73x one worker where steady runs read 1.0-1.1x.
 */
export const WORKERS_WARM_UP_MAX_RUNS = 15;

/** Round r runs the list in order when r is even and reversed when it is odd: each N goes first as often. */
export function roundOrder(list: number[], round: number): number[] {
  return round % 2 === 0 ? [...list] : [...list].reverse();
}

/** Each N's ratio to one worker: the ratio within each round (a round without both is left out), summarised. */
export function ratioToOne(rounds: Map<number, number>[], workers: number): Spread | undefined {
  return spread(
    rounds.filter((round) => round.has(1) && round.has(workers)).map((round) => round.get(workers)! / round.get(1)!),
  );
}
