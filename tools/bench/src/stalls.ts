// What stalls plant-store at saturation (issue 26 item 3): the SQLite service (and PostgreSQL with --postgres) with
// stall-probe.mjs preloaded, driven closed loop by wrk (server on core 0, wrk on core 1, 50 connections) on the hot
// read and the mixed workload; per scenario it prints wrk's figures and a summary of the probe's 100 ms windows: the
// event loop's delay, garbage collection (count, time by kind, the longest pause) and the heap. A window whose delay
// far exceeds its GC time was a stall with no collection in it: the process off its core, or work on the loop.
// Usage: tsx tools/bench/src/stalls.ts [--seconds N] [--postgres] [--keep DIR] (the probe files are kept in DIR)
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { plantStore, postgresSchema, sqliteFile } from './targets.js';
import { requireWrk, wrkAgainst } from './wrk.js';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '8' },
    postgres: { type: 'boolean', default: false },
    keep: { type: 'string' },
  },
});
requireWrk();
const BIN = fileURLToPath(new URL('../../../packages/server/bin/plant-store.js', import.meta.url));
const PROBE = fileURLToPath(new URL('./stall-probe.mjs', import.meta.url));
const dir = values.keep ?? mkdtempSync(join(tmpdir(), 'plant-store-stalls-'));
mkdirSync(dir, { recursive: true });
const seconds = Number(values.seconds);

type Row = Record<string, number>;
function windows(file: string): Row[] {
  const [head, ...lines] = readFileSync(file, 'utf8').trim().split('\n');
  const names = head!.split('\t');
  return lines.map((line) => Object.fromEntries(line.split('\t').map((value, i) => [names[i]!, Number(value)])));
}
const at = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.floor(p * (values.length - 1))]!;
const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

let port = 4460;
for (const [engine, databaseUrl] of [
  ['SQLite', sqliteFile],
  ...(values.postgres ? ([['PostgreSQL', postgresSchema('bench_stalls')]] as const) : []),
] as const) {
  for (const scenario of ['get', 'mixed'] as const) {
    const file = join(dir, `${engine}-${scenario}.tsv`);
    const target = plantStore(`${engine} with the stall probe`, databaseUrl, { STALL_PROBE_FILE: file }, [scenario], {
      node: process.execPath,
      bin: BIN,
      args: ['--import', PROBE, BIN, 'serve'],
    });
    const running = await target.start(port++);
    const run = (base: number, runSeconds: number) =>
      wrkAgainst(running, { scenario, base, seconds: runSeconds, connections: 50 });
    let measuredFrom = 0;
    try {
      await run(500_000_000, 2);
      measuredFrom = windows(file).length;
      const result = await run(600_000_000, seconds);
      console.log(
        `${engine} ${scenario}: ${result.requestsPerSec.toFixed(0)} req/s, p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms, ${result.cpuUsPerRequest.toFixed(1)} us CPU/request`,
      );
    } finally {
      await running.stop();
    }
    const rows = windows(file).slice(measuredFrom, measuredFrom + seconds * 10);
    const delay = rows.map((r) => r.delay_max_ms!);
    console.log(
      `  ${rows.length} windows of 100 ms: loop delay max per window median ${at(delay, 0.5).toFixed(1)} ms, p90 ${at(delay, 0.9).toFixed(1)}, max ${Math.max(...delay).toFixed(1)}; GC ${mean(rows.map((r) => r.gc_count!)).toFixed(1)} collections and ${mean(rows.map((r) => r.gc_minor_ms!)).toFixed(2)} ms minor + ${mean(rows.map((r) => r.gc_major_ms! + r.gc_incremental_ms!)).toFixed(2)} ms major/incremental per window, longest ${Math.max(...rows.map((r) => r.gc_longest_ms!)).toFixed(1)} ms; heap used ${Math.min(...rows.map((r) => r.heap_used_mb!))}-${Math.max(...rows.map((r) => r.heap_used_mb!))} MB`,
    );
    for (const r of [...rows].sort((a, b) => b.delay_max_ms! - a.delay_max_ms!).slice(0, 5)) {
      const gc = r.gc_minor_ms! + r.gc_major_ms! + r.gc_incremental_ms!;
      console.log(
        `  stall at ${(r.t_ms! / 1000).toFixed(1)} s: loop delay ${r.delay_max_ms} ms, GC in the window ${gc.toFixed(1)} ms (${r.gc_count} collections, longest ${r.gc_longest_ms} ms), heap ${r.heap_used_mb} MB`,
      );
    }
  }
}
console.log(`probe files: ${dir}`);
