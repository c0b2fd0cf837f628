// `pnpm bench:drivers`: the PostgreSQL store's statements through `pg` (node-postgres, a pool of 10, one query at a
// time per connection, named prepared statements) and through `postgres` (porsager's postgres.js, 10 connections,
// prepared statements and pipelining), with 50 concurrent callers, side by side in one run (this process pinned to
// core 0), N rounds each, median and spread of queries per second. The store uses the driver these figures favour.
// Options: --rounds N (3), --seconds N (per path and driver, 3).
import { parseArgs } from 'node:util';
import pg from 'pg';
import postgres from 'postgres';
import { show, spread } from './stats.js';
import { POSTGRES_URL } from './targets.js';

const { values } = parseArgs({
  options: { rounds: { type: 'string', default: '3' }, seconds: { type: 'string', default: '3' } },
});
const schema = `bench_drivers_${Date.now()}`;
const CONCURRENCY = 50;
const POOL = 10;

const LIST = `SELECT coalesce('[' || string_agg('{"name":' || to_json(name)::text
             || CASE WHEN tag IS NULL THEN '' ELSE ',"tag":' || to_json(tag)::text END || '}', ',' ORDER BY id)
           FILTER (WHERE n <= $3) || ']', '[]') AS json,
         (max(id) FILTER (WHERE n <= $3))::text AS last_id, count(*) > $3 AS has_more
  FROM (SELECT id, name, tag, row_number() OVER (ORDER BY id) AS n FROM plants
        WHERE owner = $1 AND ($2::bigint IS NULL OR id > $2::bigint) ORDER BY id LIMIT $3 + 1) AS page`;
const INSERT = `INSERT INTO plants (owner, id, name, tag) SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[])
  ON CONFLICT (owner, id) DO NOTHING RETURNING owner, id`;
const TOKEN = 'SELECT * FROM tokens WHERE secret_hash = $1';

const setup = new pg.Client({ connectionString: POSTGRES_URL });
await setup.connect();
await setup.query(`CREATE SCHEMA ${schema}`);
await setup.query(`SET search_path = ${schema}`);
await setup.query(
  'CREATE TABLE plants (owner TEXT NOT NULL, id BIGINT NOT NULL, name TEXT NOT NULL, tag TEXT, PRIMARY KEY (owner, id))',
);
await setup.query('CREATE TABLE tokens (id TEXT PRIMARY KEY, subject TEXT, secret_hash BYTEA UNIQUE)');
await setup.query(
  `INSERT INTO plants SELECT 'owner-' || (g % 40), g, 'plant ' || g, 'tag' FROM generate_series(1, 8000) AS g`,
);
await setup.query(
  `INSERT INTO tokens SELECT 't' || g, 's' || g, sha256(('t' || g)::bytea) FROM generate_series(1, 40) AS g`,
);

const nodePg = new pg.Pool({ connectionString: POSTGRES_URL, max: POOL, options: `-c search_path=${schema}` });
const porsager = postgres(POSTGRES_URL, {
  max: POOL,
  connection: { search_path: schema },
  types: { bigint: postgres.BigInt },
  onnotice: () => {},
});

type Call = (i: number) => Promise<unknown>;
let nextId = 1_000_000;
const batch = (i: number) => {
  const ids = Array.from({ length: 20 }, () => String(nextId++));
  return [ids.map(() => `owner-${i % 40}`), ids, ids.map((id) => `new ${id}`), ids.map(() => 'tag')];
};
const hashes: Buffer[] = (await setup.query('SELECT secret_hash FROM tokens')).rows.map((row) => row.secret_hash);
const hash = (i: number) => hashes[i % hashes.length]!;

const paths: Record<string, { pg: Call; postgres: Call }> = {
  'list page (cache miss)': {
    pg: (i) => nodePg.query({ name: 'list', text: LIST, values: [`owner-${i % 40}`, null, 10 + (i % 91)] }),
    postgres: (i) => porsager.unsafe(LIST, [`owner-${i % 40}`, null, 10 + (i % 91)], { prepare: true }),
  },
  'insert batch of 20 rows': {
    pg: (i) => nodePg.query({ name: 'insert', text: INSERT, values: batch(i) }),
    postgres: (i) => porsager.unsafe(INSERT, batch(i), { prepare: true }),
  },
  'token by hash': {
    pg: (i) => nodePg.query({ name: 'token', text: TOKEN, values: [hash(i)] }),
    postgres: (i) => porsager.unsafe(TOKEN, [hash(i)], { prepare: true }),
  },
};

async function measure(call: Call, seconds: number): Promise<number> {
  const end = performance.now() + seconds * 1000;
  let done = 0;
  const worker = async (w: number) => {
    for (let i = w; performance.now() < end; i += CONCURRENCY) {
      await call(i);
      done++;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, (_, w) => worker(w)));
  return (done / (performance.now() - started)) * 1000;
}

const results: Record<string, { pg: number[]; postgres: number[] }> = {};
try {
  for (const path of Object.keys(paths)) {
    // Warm both (connections, prepared statements, JIT) before anything counts.
    await measure(paths[path]!.pg, 0.5);
    await measure(paths[path]!.postgres, 0.5);
  }
  for (let round = 0; round < Number(values.rounds); round++) {
    for (const [path, calls] of Object.entries(paths)) {
      const order = round % 2 ? (['postgres', 'pg'] as const) : (['pg', 'postgres'] as const);
      results[path] ??= { pg: [], postgres: [] };
      for (const driver of order) results[path][driver].push(await measure(calls[driver], Number(values.seconds)));
    }
  }
} finally {
  await nodePg.end();
  await porsager.end();
  await setup.query(`DROP SCHEMA ${schema} CASCADE`);
  await setup.end();
}
console.log(
  `| path (${CONCURRENCY} concurrent callers, ${POOL} connections) | pg q/s | postgres q/s | postgres / pg |`,
);
console.log('|---|---:|---:|---:|');
for (const [path, figures] of Object.entries(results)) {
  const ratios = spread(figures.postgres.map((value, i) => value / figures.pg[i]!));
  console.log(`| ${path} | ${show(spread(figures.pg))} | ${show(spread(figures.postgres))} | ${show(ratios, 2)}x |`);
}
