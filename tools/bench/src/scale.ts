// How cost grows with the data: the service answering a mixed load (90% reads of 10..100 plants, 10% creates) at a
// fixed, modest open-loop rate with 1k, 100k and 1M plants stored, either all owned by the principal measured or
// spread over 1000 principals. The plants are inserted in bulk with SQL between steps (not through HTTP), and the
// server restarts after each insert so every step starts from empty caches.
import Database from 'better-sqlite3';
import pg from 'pg';
import { type OpenLoopResult, openLoop } from './open-loop.js';
import { dropDatabase, issueTokens, POSTGRES_URL, plantStore, postgresSchema, sqliteFile } from './targets.js';

export const SIZES = [1_000, 100_000, 1_000_000] as const;
export type Layout = 'one principal' | 'spread over 1000';
export const LAYOUTS: Layout[] = ['one principal', 'spread over 1000'];
const OWNERS = 1000;
/** Requests per second of the growth runs: well inside every engine's capacity, so latency is the cost, not queueing. */
export const SCALE_RATE = 500;

export interface ScaleSample {
  engine: 'SQLite' | 'PostgreSQL';
  layout: Layout;
  size: number;
  result: OpenLoopResult;
}

// Rows `from` to `to` - 1 of the layout: all the measured principal's, or round-robin over OWNERS principals.
function rowsSql(layout: Layout, engine: ScaleSample['engine']): string {
  const owner = layout === 'one principal' ? `'scale-0'` : `'scale-' || (g % ${OWNERS})`;
  const id = layout === 'one principal' ? 'g + 1' : `g / ${OWNERS} + 1`;
  const select = `SELECT ${owner}, ${id}, 'plant ' || g, 'tag' FROM`;
  return engine === 'SQLite'
    ? `WITH RECURSIVE s(g) AS (SELECT ? UNION ALL SELECT g + 1 FROM s WHERE g + 1 < ?)
       INSERT INTO plants (owner, id, name, tag) ${select} s`
    : `INSERT INTO plants (owner, id, name, tag) ${select} generate_series($1::bigint, $2::bigint - 1) AS g`;
}

async function insertRows(
  databaseUrl: string,
  engine: ScaleSample['engine'],
  layout: Layout,
  from: number,
  to: number,
) {
  if (engine === 'SQLite') {
    const db = new Database(databaseUrl.slice('sqlite:'.length));
    try {
      db.prepare(rowsSql(layout, engine)).run(from, to);
    } finally {
      db.close();
    }
    return;
  }
  const schema = /[?&]schema=(\w+)/.exec(databaseUrl)![1]!;
  const client = new pg.Client({ connectionString: POSTGRES_URL, options: `-c search_path=${schema}` });
  await client.connect();
  try {
    await client.query(rowsSql(layout, engine), [from, to]);
    await client.query('ANALYZE plants');
  } finally {
    await client.end();
  }
}

export async function costGrowth(
  engine: ScaleSample['engine'],
  layout: Layout,
  port: number,
  base: number,
  seconds: number,
): Promise<ScaleSample[]> {
  const databaseUrl = engine === 'SQLite' ? sqliteFile() : postgresSchema('bench_scale')();
  const [token] = await issueTokens(undefined, databaseUrl, ['scale-0']);
  const samples: ScaleSample[] = [];
  let stored = 0;
  try {
    for (const size of SIZES) {
      await insertRows(databaseUrl, engine, layout, stored, size);
      stored = size;
      const running = await plantStore(`scale ${engine}`, () => databaseUrl, {}, [], undefined, false).start(port);
      try {
        const plan = { url: running.url, kind: 'mixed' as const, tokens: [token!], serverPid: running.pid };
        await openLoop({ ...plan, rate: SCALE_RATE, seconds: 1, base: base + size * 10 });
        const result = await openLoop({ ...plan, rate: SCALE_RATE, seconds, base: base + size * 10 + 100_000 });
        samples.push({ engine, layout, size, result });
      } finally {
        await running.stop(true);
      }
    }
  } finally {
    await dropDatabase(databaseUrl);
  }
  return samples;
}
