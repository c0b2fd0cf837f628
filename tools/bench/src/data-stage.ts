// `pnpm bench --data 100000,1000000` (`pnpm bench:data`): the export and import stage, alone. For each size, plants of
// 1,000 principals: import and export on SQLite and on PostgreSQL (records a second, each command's peak RSS), the
// hot read's p99 against a serving SQLite service without and during an export, and the write downtime of the move
// docs/deployment.md documents (read-only, export, import, start on PostgreSQL, first create answered). Each figure
// is printed beside its goal, met or missed.
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { type ArchiveRecord, ArchiveWriter } from '@plant-store/server/archive';
import pg from 'pg';
import { runToEnd, spawnTracked, stopChild } from './children.js';
import { POSTGRES_URL } from './targets.js';
import { wrk } from './wrk.js';

const BIN = fileURLToPath(new URL('../../../packages/server/bin/plant-store.js', import.meta.url));
const PRINCIPALS = 1_000;

/** The stage's goals, each printed beside its figure. */
const GOALS = { recordsPerSecond: 100_000, rssMb: 200, p99Ratio: 2, downtimeSeconds: 60 };

interface Measured {
  seconds: number;
  rssMb: number;
  records: number;
  /** The command's own CPU time (user and system), whatever else the machine ran meanwhile. */
  cpuSeconds: number;
}

/** Runs `plant-store <args>` under GNU time: its wall time, peak RSS, and the records its --json summary counts. */
async function command(args: string[], databaseUrl: string): Promise<Measured> {
  const run = await runToEnd(
    '/usr/bin/time',
    ['-f', 'peak-rss-kb %M cpu %U %S', process.execPath, BIN, ...args, '--json'],
    {
      ...process.env,
      DATABASE_URL: databaseUrl,
      LOG_LEVEL: 'warn',
    },
  );
  if (run.code !== 0) throw new Error(`plant-store ${args.join(' ')} failed: ${run.stdout}${run.stderr}`);
  const summary = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as { records: number; seconds: number };
  const [, rssKb, user, system] = /peak-rss-kb (\d+) cpu ([\d.]+) ([\d.]+)/.exec(run.stderr) ?? [];
  return {
    seconds: summary.seconds,
    rssMb: Number(rssKb) / 1024,
    records: summary.records,
    cpuSeconds: Number(user) + Number(system),
  };
}

/** An archive of `plants` plants, 1,000 principals' worth each, written as export writes one. */
async function writeArchive(file: string, plants: number): Promise<void> {
  const out = createWriteStream(file, { mode: 0o600 });
  const writer = new ArchiveWriter(out, { contract: 'bench', engine: 'sqlite', exportedAt: new Date().toISOString() });
  const each = Math.ceil(plants / PRINCIPALS);
  const createdAt = new Date().toISOString();
  for (let principal = 0; principal < PRINCIPALS; principal++) {
    const batch: ArchiveRecord[] = [];
    for (let id = 1; id <= each && principal * each + id <= plants; id++) {
      batch.push({
        kind: 'plant',
        owner: `principal-${principal}`,
        id: String(id),
        name: `plant ${id} of principal ${principal}`,
        tag: id % 2 === 0 ? 'green' : null,
        createdAt,
      });
    }
    await writer.write(batch);
  }
  await writer.finish();
  out.end();
  await finished(out);
}

interface Server {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/** `plant-store serve` on core 0 (wrk runs on core 1), resolved once it listens. */
async function serve(databaseUrl: string, port: number, env: Record<string, string> = {}): Promise<Server> {
  const child = spawnTracked('taskset', ['-c', '0', process.execPath, BIN, 'serve'], {
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      LOG_LEVEL: 'info',
      RATE_LIMIT_MAX: '0',
      RATE_LIMIT_ANONYMOUS_MAX: '0',
      METRICS_PORT: 'off',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`the server did not start: ${seen}`)), 60_000);
    const look = (chunk: Buffer) => {
      seen += chunk;
      if (seen.includes('Server listening at')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', look);
    child.stderr!.on('data', look);
    child.once('exit', () => reject(new Error(`the server exited: ${seen}`)));
  });
  return { url: `http://127.0.0.1:${port}`, pid: child.pid!, stop: () => stopChild(child) };
}

async function token(databaseUrl: string, subject: string): Promise<string> {
  const run = await runToEnd(process.execPath, [BIN, 'token', 'create', '--subject', subject], {
    ...process.env,
    DATABASE_URL: databaseUrl,
  });
  if (run.code !== 0) throw new Error(`token create failed: ${run.stderr}`);
  return run.stdout.trim().split('\n').at(-1)!;
}

const verdict = (met: boolean) => (met ? 'met' : 'MISSED');

async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

/** Runs the stage for each size; true when every goal was met. */
export async function dataStage(sizes: readonly number[], postgresUp: boolean, port: number): Promise<boolean> {
  let allMet = true;
  const report = (what: string, figure: string, met: boolean, goal: string) => {
    allMet &&= met;
    console.log(`  ${what.padEnd(44)} ${figure.padStart(16)}   goal ${goal}: ${verdict(met)}`);
  };
  const rate = (measured: Measured) => measured.records / measured.seconds;
  const throughput = (what: string, measured: Measured) => {
    report(
      `${what}: records/s`,
      Math.round(rate(measured)).toLocaleString('en'),
      rate(measured) >= GOALS.recordsPerSecond,
      '>= 100,000',
    );
    report(`${what}: peak RSS (MB)`, measured.rssMb.toFixed(0), measured.rssMb < GOALS.rssMb, '< 200');
    console.log(
      `  (${measured.records.toLocaleString('en')} records in ${measured.seconds.toFixed(2)} s; the command's CPU ` +
        `${measured.cpuSeconds.toFixed(2)} s, ${Math.round(measured.records / measured.cpuSeconds).toLocaleString('en')} records a CPU-second)`,
    );
  };
  for (const size of sizes) {
    const folder = mkdtempSync(join(tmpdir(), 'plant-store-bench-data-'));
    const schemas: string[] = [];
    try {
      const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
      console.log(`\ndata stage: ${size.toLocaleString('en')} plants (${PRINCIPALS} principals), load average ${load}`);
      const archive = join(folder, 'plants.jsonl');
      await writeArchive(archive, size);
      const sqlite = `sqlite:${join(folder, 'plants.db')}`;
      throughput('SQLite import', await command(['import', '--input', archive], sqlite));
      const exportAlone = await command(['export', '--output', join(folder, 'sqlite-export.jsonl')], sqlite);
      throughput('SQLite export', exportAlone);

      // The hot read (one principal's first 100 plants, 50 connections) without and during an export.
      const reader = await token(sqlite, 'principal-0');
      const server = await serve(sqlite, port);
      try {
        const seconds = Math.max(3, Math.ceil(exportAlone.seconds));
        const read = () =>
          wrk({
            url: server.url,
            scenario: 'get',
            token: reader,
            base: 0,
            seconds,
            connections: 50,
            serverPid: server.pid,
          });
        await read(); // warm-up
        const quiet = await read();
        const [busy] = await Promise.all([
          read(),
          command(['export', '--output', join(folder, 'during-reads.jsonl')], sqlite),
        ]);
        const ratio = busy.p99Ms / quiet.p99Ms;
        report(
          'hot-read p99 during an export / without',
          `${busy.p99Ms.toFixed(2)} / ${quiet.p99Ms.toFixed(2)} ms = ${ratio.toFixed(2)}x`,
          ratio <= GOALS.p99Ratio,
          '<= 2x',
        );
      } finally {
        await server.stop();
      }

      if (!postgresUp) {
        console.log('  PostgreSQL: not reachable (pg_isready failed); its figures and the move are skipped');
        continue;
      }
      const schema = `bench_data_${process.pid}_${size}`;
      schemas.push(schema);
      const postgres = `${POSTGRES_URL}?schema=${schema}`;
      throughput('PostgreSQL import', await command(['import', '--input', archive], postgres));
      throughput('PostgreSQL export', await command(['export', '--output', join(folder, 'pg-export.jsonl')], postgres));

      // The move as docs/deployment.md tells it, timed from the moment writes stop to the first create answered.
      const moveTarget = `bench_move_${process.pid}_${size}`;
      schemas.push(moveTarget);
      const writable = await serve(sqlite, port);
      const writer = await token(sqlite, 'mover');
      const started = performance.now();
      await writable.stop();
      const readOnly = await serve(sqlite, port, { READ_ONLY: 'true' });
      const moved = join(folder, 'move.jsonl');
      const exported = await command(['export', '--output', moved], sqlite);
      const target = `${POSTGRES_URL}?schema=${moveTarget}`;
      const imported = await command(['import', '--input', moved], target);
      const onPostgres = await serve(target, port + 1);
      let created = 0;
      for (let attempt = 0; created !== 200 && attempt < 100; attempt++) {
        const answer = await fetch(`${onPostgres.url}/plants`, {
          method: 'POST',
          headers: { authorization: `Bearer ${writer}`, 'content-type': 'application/json' },
          body: '{"id":1,"name":"after the move"}',
        });
        created = answer.status;
      }
      const downtime = (performance.now() - started) / 1000;
      await Promise.all([readOnly.stop(), onPostgres.stop()]);
      report(
        'write downtime of the move (s)',
        downtime.toFixed(1),
        created === 200 && downtime < GOALS.downtimeSeconds,
        '< 60',
      );
      console.log(
        `  (the move: export ${exported.seconds.toFixed(1)} s; import ${imported.seconds.toFixed(1)} s; the rest ` +
          'is the restart read-only and the start on PostgreSQL)',
      );
    } finally {
      for (const schema of schemas) await dropSchema(schema).catch(() => {});
      rmSync(folder, { recursive: true, force: true });
    }
  }
  console.log(`\ndata stage: ${allMet ? 'every goal met' : 'a goal was MISSED'}`);
  return allMet;
}
