// The workers stage (`pnpm bench --workers 1,2`): `plant-store serve --workers N` on SQLite under the mixed workload,
// each N started fresh on a copy of one seeded database (with `--cpu-prof DIR`, its processes write V8 CPU profiles
// there: cpu-profiles.ts), warmed up by the rule every target shares (warm-up.ts) up to
// a higher cap (WORKERS_WARM_UP_MAX_RUNS: each worker fills a cache of its own), then measured; rounds interleave the
// Ns, the order alternating (workers-plan.ts says where each runs and with what load). The server's CPU counts every process, the primary and its workers.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { treeCpuSeconds } from './cpu.js';
import { show, spread } from './stats.js';
import { PLANTS_PER_PRINCIPAL, PRINCIPALS, plantStore, serveWorkers, sqliteFile } from './targets.js';
import { cpuTrail, steadiness, warmUntilSteady } from './warm-up.js';
import {
  type Placement,
  placement,
  ratioToOne,
  roundOrder,
  stageLoad,
  WORKERS_WARM_UP_MAX_RUNS,
} from './workers-plan.js';
import { treeRssMb, type WrkResult, wrkAgainst } from './wrk.js';

export interface WorkersRun {
  workers: number;
  round: number;
  result: WrkResult;
}

export interface WorkersStage {
  runs: WorkersRun[];
  placements: Placement[];
  load: { threads: number; connections: number };
  cores: number;
}

export async function workersStage(options: {
  list: number[];
  rounds: number;
  seconds: number;
  warmUpSeconds: number;
  connections: number;
  port: number;
  newBase: () => number;
  log: (line: string) => void;
  /** Where each start's V8 CPU profiles go (a folder per N and round, `workers-N-round-R`); none when undefined. */
  cpuProfDir?: string;
}): Promise<WorkersStage> {
  const cores = availableParallelism();
  const placements = options.list.map((workers) => placement(cores, workers));
  const load = stageLoad(placements, options.connections);
  let port = options.port;
  // One database seeded once through the service (the principals, their plants and tokens), copied for every start.
  const templateUrl = sqliteFile();
  const template = await plantStore('serve --workers: the seeded database', () => templateUrl).start(port++);
  const tokens = template.tokens;
  await template.stop(true);
  const templateDir = dirname(templateUrl.slice('sqlite:'.length));
  const runs: WorkersRun[] = [];
  try {
    for (let round = 0; round < options.rounds; round++) {
      for (const workers of roundOrder(options.list, round)) {
        const where = placements.find((p) => p.workers === workers)!;
        const dir = mkdtempSync(join(tmpdir(), 'plant-store-bench-workers-'));
        cpSync(templateDir, dir, { recursive: true });
        const profiles = options.cpuProfDir && join(options.cpuProfDir, `workers-${workers}-round-${round + 1}`);
        const server = await serveWorkers({
          databaseUrl: `sqlite:${join(dir, 'bench.db')}`,
          tokens,
          port: port++,
          workers,
          cores: where.serverCores ?? null,
          ...(profiles ? { env: { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${profiles}` } } : {}),
        });
        try {
          const run = (seconds: number) =>
            wrkAgainst(server, {
              scenario: 'mixed',
              base: options.newBase(),
              seconds,
              connections: load.connections,
              cores: where.wrkCores,
              threads: load.threads,
              cpu: treeCpuSeconds,
              rss: treeRssMb,
            });
          const warm = await warmUntilSteady(() => run(options.warmUpSeconds), { maxRuns: WORKERS_WARM_UP_MAX_RUNS });
          const result = await run(options.seconds);
          runs.push({ workers, round, result });
          options.log(
            `round ${round + 1}/${options.rounds}: serve --workers ${workers} (server on ${where.serverCores ?? 'any core'}, wrk on ${where.wrkCores}): warm-up ${warm.runs.length} runs, ${cpuTrail(warm)}${steadiness(warm)}; mixed ${result.requestsPerSec.toFixed(0)} req/s, ${result.cpuUsPerRequest.toFixed(1)} us CPU/request (${(result.cpuSeconds / options.seconds).toFixed(2)} cores), p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms, non-2xx ${result.non2xx}`,
          );
        } finally {
          await server.stop();
          rmSync(dir, { recursive: true, force: true });
        }
      }
    }
  } finally {
    rmSync(templateDir, { recursive: true, force: true });
  }
  return { runs, placements, load, cores };
}

/** Each N's req/s per round of the workers stage, for the ratios to one worker. */
export const workersRounds = (workers: WorkersStage, rounds: number) =>
  Array.from(
    { length: rounds },
    (_, round) =>
      new Map(workers.runs.filter((r) => r.round === round).map((r) => [r.workers, r.result.requestsPerSec])),
  );

/** The workers stage's table and what it did, in words; a line saying how to run it when it did not run. */
export function workersTable(
  workers: WorkersStage | undefined,
  { rounds, seconds, warmUpSeconds }: { rounds: number; seconds: number; warmUpSeconds: number },
): string {
  if (!workers) return 'Not run (`--workers LIST` runs it, e.g. `--workers 1,2`).';
  const rows = workers.placements.map((p) => {
    const runs = workers.runs.filter((r) => r.workers === p.workers).map((r) => r.result);
    return `| ${p.workers} | ${p.serverCores ?? 'any (not pinned)'} | ${p.wrkCores} | ${show(spread(runs.map((r) => r.requestsPerSec)))} | ${show(spread(runs.map((r) => r.p50Ms)), 2)} | ${show(spread(runs.map((r) => r.p99Ms)), 2)} | ${show(spread(runs.map((r) => r.cpuUsPerRequest)), 1)} | ${show(spread(runs.map((r) => r.cpuSeconds / seconds)), 2)} | ${p.workers === 1 ? '1' : show(ratioToOne(workersRounds(workers, rounds), p.workers), 2)} | ${runs.reduce((sum, r) => sum + r.non2xx, 0)} | ${Math.max(...runs.map((r) => r.maxRssMb))} |`;
  });
  const unpinned = workers.placements.filter((p) => p.serverCores === undefined).map((p) => p.workers);
  return `\`plant-store serve --workers N\` on SQLite under the mixed workload, for N in ${workers.placements.map((p) => p.workers).join(', ')}: one database seeded once (the same ${PRINCIPALS} principals with ${PLANTS_PER_PRINCIPAL} plants each, over HTTP) and copied for every start, so each N starts fresh on the same data. ${rounds} round${rounds === 1 ? '' : 's'}, each starting every N in turn, the order alternating (as listed, then reversed); each N warmed up by the rule every target shares, up to ${WORKERS_WARM_UP_MAX_RUNS} runs of ${warmUpSeconds} s (each worker fills a page cache of its own), then measured ${seconds} s with wrk \`-t${workers.load.threads} -c${workers.load.connections}\`, the same for every N. On this ${workers.cores}-core machine, N workers run on cores 0..N-1 and wrk on the rest where there are N+1 cores${unpinned.length ? `; for N = ${unpinned.join(', ')} it has fewer, so the server ran unpinned (the kernel spreads its processes over every core) and wrk on core ${workers.cores - 1}, which the server shares: those figures say whether more workers serve less on a busy machine, not how far they scale` : ''}. Server CPU counts every process, the primary and its workers; "cores" is that CPU time over the run's seconds. The ratio to one worker is taken within each round and summarised as the median (min-max).

| workers | server cores | wrk cores | req/s | p50 ms | p99 ms | server CPU us/request | cores used | ratio to 1 worker | non-2xx | peak RSS MB, every process |
|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|
${rows.join('\n')}`;
}
