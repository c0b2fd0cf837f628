// The workers stage (`pnpm bench --workers 1,2`): `plant-store serve --workers N` on SQLite under the mixed workload,
// each N started fresh on a copy of one seeded database (with `--cpu-prof DIR`, its processes write V8 CPU profiles
// there: cpu-profiles.ts), warmed up by the rule every target shares (warm-up.ts) up to
// a higher cap (WORKERS_WARM_UP_MAX_RUNS: each worker fills a cache of its own), then measured; rounds interleave the
// Ns, the order alternating (workers-plan.ts says where each runs and with what load). The server's CPU counts every process, the primary and its workers.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { treeCpuSeconds } from './cpu.js';
import { plantStore, serveWorkers, sqliteFile } from './targets.js';
import { cpuTrail, steadiness, warmUntilSteady } from './warm-up.js';
import { type Placement, placement, roundOrder, stageLoad, WORKERS_WARM_UP_MAX_RUNS } from './workers-plan.js';
import { type WrkResult, wrkAgainst } from './wrk.js';

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
