// The Node flags and environment a server process runs with, for `plant-store serve` (bin/plant-store.js) and for
// `pnpm start` (scripts/start.ts), which starts the server with them at once rather than having it start itself again;
// and the flags of `export` and `import`.
import { availableParallelism } from 'node:os';

// A server sizes its memory itself, with flags V8 and glibc read only at start-up, so `serve` re-executes its process
// (same pid, so supervisors and signals are unaffected) with those NODE_OPTIONS or the command line do not already
// set; docs/benchmarks.md has the figures.
// - An 8 MB semi-space: left alone, V8 on Node 24 grows each semi-space to 64 MB under load (a 128 MB young
//   generation), while requests' garbage dies young and fits in far less. 2 MB (an earlier choice) promoted the
//   objects of requests still in flight across two scavenges into the old generation, whose collections then made
//   the tail (16 MB served the mixed workload at 1.24x its requests a second, p99 28 ms against 45). 16 MB (the next
//   choice) held 11-16 MB more RSS than 8 under the bench's load (hot read 160 against 146 MB, mixed 161-170 against
//   150-155) for no CPU a request or p99 that 5 side-by-side mixed pairs could tell apart (docs/performance.md).
// - A 384 MB ceiling on the old generation: V8 lets the heap grow to as much as 4 times its live size between major
//   collections when the ceiling is large (4 GiB by default on a machine of 16 GiB or more), and less the lower the
//   ceiling; the service's live heap is tens of MB (its caches are bounded in bytes). On the bench's mixed workload
//   (40 principals x 200 plants, wrk with 50 connections for 5 s, two runs each) peak RSS was 115-116 MB under 384
//   and 126-130 MB under 1024, at the same throughput.
// - V8's worker threads no more than the cores the process may run on (its CPU affinity and quota; Node's default is
//   4): a collection splits its parallel phases among them and the main thread waits for every part, so 4 workers
//   sharing one core (a container of one CPU, a `taskset`) left the event loop stopped for their time slices, one
//   after another: 18 ms in one case, traced with `perf sched`. One core, SQLite, closed loop (3 runs each): mixed p99
//   8.9-10.5 ms against 10.0-15.9, the longest loop delay per 100 ms at its p99 15-23 ms against 27-33.
// - MALLOC_ARENA_MAX=2: glibc gives each thread that allocates (libuv's pool, V8's workers) an arena of its own.
const SIZING = [
  ['--max-semi-space-size', /^--(max|min)-semi-space-size/, '8'],
  ['--max-old-space-size', /^--max-old-space-size/, '384'],
  ['--v8-pool-size', /^--v8-pool-size/, String(Math.min(4, availableParallelism()))],
];

/** The environment a server starts with, under what the caller's environment sets. */
export const SERVE_ENV = { MALLOC_ARENA_MAX: '2' };

// `export` and `import` stream rows in batches (a live heap of a few MB): a 4 MB semi-space and a 128 MB ceiling keep
// their peak RSS flat at 1M plants (about 160 MB, most of it the process's code; 190-230 MB left alone).
const ARCHIVE_SIZING = [
  ['--max-semi-space-size', /^--(max|min)-semi-space-size/, '4'],
  ['--max-old-space-size', /^--max-old-space-size/, '128'],
];

/** The flags (`--flag=value`) of `sizing` that neither `execArgv` nor NODE_OPTIONS in `env` sets already. */
function missing(sizing, execArgv, env) {
  const given = [...execArgv, ...(env.NODE_OPTIONS ?? '').split(/\s+/)];
  return sizing
    .filter(([, pattern]) => !given.some((flag) => pattern.test(flag)))
    .map(([flag, , value]) => `${flag}=${value}`);
}

/** The server's sizing flags that neither `execArgv` nor NODE_OPTIONS in `env` sets already. */
export const missingServeFlags = (execArgv, env) => missing(SIZING, execArgv, env);

/** The same for `export` and `import`. */
export const missingArchiveFlags = (execArgv, env) => missing(ARCHIVE_SIZING, execArgv, env);
