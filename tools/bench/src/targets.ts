// The servers the benchmark compares, each started pinned to core 0 (every process registered in children.ts, so
// none outlives the run) and seeded with the same principals and plants.
import { type ChildProcess, execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import { missingServeFlags, SERVE_ENV } from '../../../packages/server/bin/serve-flags.js';
import { spawnTracked, stopChild } from './children.js';
import { DEFAULTS, TUNED } from './configurations.js';
import { recordAnswer, serialiseAnswer } from './floor-answer.js';
import type { Scenario } from './wrk.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const BIN = join(root, 'packages/server/bin/plant-store.js');

/** The mixed workload's principals, and the plants each owns before it starts. */
export const PRINCIPALS = 40;
export const PLANTS_PER_PRINCIPAL = 200;

export interface Running {
  url: string;
  pid: number;
  /** The first principal's token: the single-principal scenarios use it. */
  token: string;
  /** One token per principal (PRINCIPALS of them), for the mixed workload. */
  tokens: string[];
  /** Stops the server and, unless `keepData` is set, drops its PostgreSQL schema. */
  stop(keepData?: boolean): Promise<void>;
}

export interface Target {
  name: string;
  /** Closed-loop wrk scenarios; each of 'get' and 'create' is also measured open loop at fixed rates. */
  scenarios: Scenario[];
  start(port: number): Promise<Running>;
}

/** Waits until `child` answers `path` below 500; a child that never does is stopped before this throws. */
async function waitForHealth(url: string, child: ChildProcess, path = '/healthz'): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`${url}: server exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${url}${path}`)).status < 500) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await stopChild(child);
  throw new Error(`${url}: server did not start`);
}

// Each server in a Linux session of its own (detached), as a deployed service runs apart from its clients: the
// scheduler's autogroup shares a core between sessions first, so a server in the bench's own would share wrk's weight.
// `cores` is taskset's list, core 0 unless given; null runs the server unpinned.
function launch(
  command: string[],
  env: Record<string, string>,
  node = process.execPath,
  cores: string | null = '0',
): ChildProcess {
  const [file, args] = cores === null ? [node, command] : ['taskset', ['-c', cores, node, ...command]];
  return spawnTracked(file, args, {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
    detached: true,
  });
}

/** PLANTS_PER_PRINCIPAL plants for each token, created over HTTP 32 at a time. */
async function seed(url: string, tokens: string[]): Promise<void> {
  const jobs = tokens.flatMap((token) =>
    Array.from({ length: PLANTS_PER_PRINCIPAL }, (_, i) => ({ token, id: i + 1 })),
  );
  const worker = async () => {
    for (let job = jobs.pop(); job; job = jobs.pop()) {
      const response = await fetch(`${url}/plants`, {
        method: 'POST',
        headers: { authorization: `Bearer ${job.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ id: job.id, name: `plant number ${job.id}`, tag: `tag${job.id}` }),
      });
      if (response.status !== 200) throw new Error(`${url}: seeding answered ${response.status}`);
    }
  };
  await Promise.all(Array.from({ length: 32 }, worker));
}

/** The Node binary and the checkout's `plant-store` bin a target runs; by default this Node and this checkout. */
export interface Runtime {
  node: string;
  bin: string;
  /** Node's arguments that start the server; `<bin> serve` unless given. */
  args?: string[];
}

/**
 * The layer variants' runtime: tools/bench/src/variant-server.ts, which builds the app with the layers named in
 * BENCH_LAYERS_OFF switched off through buildApp's options (layer-switches.ts), under the V8 and glibc
 * sizing `plant-store serve` gives itself (bin/serve-flags.js).
 */
export const VARIANT_RUNTIME: Runtime = {
  node: process.execPath,
  bin: BIN,
  args: [
    ...missingServeFlags([], {}),
    '--import',
    'tsx',
    fileURLToPath(new URL('./variant-server.ts', import.meta.url)),
  ],
};

interface ServiceLibrary {
  openStore(url: string): Promise<{
    tokens: unknown;
    migrate(): Promise<unknown>;
    close(): Promise<void>;
  }>;
  issueToken(tokens: unknown, options: { subject: string }): Promise<{ token: string }>;
}

/** Migrates the database and issues one token per subject, through the built service library (one process). */
export async function issueTokens(bin: string | undefined, databaseUrl: string, subjects: string[]): Promise<string[]> {
  const library = (await import(pathToFileURL(join(bin ?? BIN, '../../dist/index.js')).href)) as ServiceLibrary;
  const store = await library.openStore(databaseUrl);
  try {
    await store.migrate();
    const tokens: string[] = [];
    for (const subject of subjects) tokens.push((await library.issueToken(store.tokens, { subject })).token);
    return tokens;
  } finally {
    await store.close();
  }
}

const subjects = Array.from({ length: PRINCIPALS }, (_, i) => `bench-${i}`);

/**
 * A plant-store target: `env` is added to the server's environment (feature variants: metrics on or off, and so
 * on), and every scenario, the mixed workload included, runs against it unchanged.
 */
export function plantStore(
  name: string,
  databaseUrl: () => string,
  env: Record<string, string> = {},
  scenarios: Scenario[] = ['get', 'create', 'delete', 'mixed'],
  runtime: Runtime = { node: process.execPath, bin: BIN },
  seedPlants = true,
): Target {
  return {
    name,
    scenarios,
    async start(port) {
      const DATABASE_URL = databaseUrl();
      const tokens = await issueTokens(runtime.bin, DATABASE_URL, subjects);
      const url = `http://127.0.0.1:${port}`;
      const up = async () => {
        const started = launch(
          runtime.args ?? [runtime.bin, 'serve'],
          {
            DATABASE_URL,
            PORT: String(port),
            ...TUNED,
            ...(runtime.args ? SERVE_ENV : {}),
            ...env,
          },
          runtime.node,
        );
        await waitForHealth(url, started);
        return started;
      };
      // Seeded over HTTP by a process of its own, stopped before the measured one starts: that one has written
      // nothing when its first scenario begins (a SQLite process starts its log thread at its first write).
      if (seedPlants) {
        const seeder = await up();
        try {
          await seed(url, tokens);
        } finally {
          await stopChild(seeder);
        }
      }
      const child = await up();
      console.log(`${name}: started at ${url}, pid ${child.pid}`);
      const stop = async (keepData = false) => {
        await stopChild(child);
        if (!keepData) await dropDatabase(DATABASE_URL);
      };
      return { url, pid: child.pid!, token: tokens[0]!, tokens, stop };
    },
  };
}

/**
 * `plant-store serve --workers N` on a database seeded before (its tokens issued then), on `cores` (taskset's list;
 * null: unpinned). Its pid is the primary's; the workers are its children.
 */
export async function serveWorkers(options: {
  databaseUrl: string;
  tokens: string[];
  port: number;
  workers: number;
  cores: string | null;
  /** More environment for the primary and (inherited) its workers, e.g. NODE_OPTIONS. */
  env?: Record<string, string>;
}): Promise<Running> {
  const child = launch(
    [BIN, 'serve', '--workers', String(options.workers)],
    {
      DATABASE_URL: options.databaseUrl,
      PORT: String(options.port),
      ...TUNED,
      ...options.env,
    },
    process.execPath,
    options.cores,
  );
  const url = `http://127.0.0.1:${options.port}`;
  await waitForHealth(url, child);
  return { url, pid: child.pid!, token: options.tokens[0]!, tokens: options.tokens, stop: () => stopChild(child) };
}

/** Drops a benchmark's PostgreSQL schema (SQLite files live in a temporary folder). */
export async function dropDatabase(databaseUrl: string): Promise<void> {
  const schema = /[?&]schema=(\w+)/.exec(databaseUrl)?.[1];
  if (!databaseUrl.startsWith('postgres') || !schema) return;
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await client.end();
  }
}

export const sqliteFile = () => `sqlite:${join(mkdtempSync(join(tmpdir(), 'plant-store-bench-')), 'bench.db')}`;
export const POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/test';
export const postgresSchema = (prefix: string) => () =>
  `${POSTGRES_URL}?schema=${prefix}_${Date.now()}_${Math.floor(Math.random() * 1e6)}`;

const peerTokens = Array.from({ length: PRINCIPALS }, (_, i) => `bench-token-${i}`);

/**
 * Node's arguments for a peer's TypeScript file. Node strips its types itself where it can (22.18 on), so a peer is
 * run as its users run theirs, with nothing loaded beside it: tsx's module hooks run on a worker thread of their own, a
 * whole Node environment (~12 MB of RSS in bare Fastify's process) no yardstick would carry in production.
 */
const peerScript = (script: string) => [
  ...(process.features.typescript ? [] : ['--import', 'tsx']),
  fileURLToPath(new URL(script, import.meta.url)),
];

/** A peer server script beside this one, accepting the `bench-token-<n>` tokens. */
function peer(
  name: string,
  script: string,
  scenarios: Scenario[],
  env: () => Record<string, string>,
  health: string,
  seeded = true,
) {
  return {
    name,
    scenarios,
    async start(port: number): Promise<Running> {
      const vars = env();
      const child = launch(peerScript(script), {
        PORT: String(port),
        ...vars,
      });
      const url = `http://127.0.0.1:${port}`;
      await waitForHealth(url, child, health);
      console.log(`${name}: started at ${url}, pid ${child.pid}`);
      try {
        if (seeded) await seed(url, peerTokens);
      } catch (error) {
        await stopChild(child);
        throw error;
      }
      const stop = async () => {
        await stopChild(child);
        if (vars.SCHEMA) await dropDatabase(`${POSTGRES_URL}?schema=${vars.SCHEMA}`);
      };
      return { url, pid: child.pid!, token: peerTokens[0]!, tokens: peerTokens, stop };
    },
  };
}

/**
 * The floor (floor-server.ts: node:http writing one recorded answer) for `source`'s hot read: it records the answer
 * `source` gives its first principal for `GET /plants?limit=100` and repeats those bytes, accepting the same tokens.
 */
export function floorOf(source: Running): Target {
  return {
    name: FLOOR,
    scenarios: ['get'],
    async start(port) {
      const answer = await recordAnswer(`${source.url}/plants?limit=100`, { authorization: `Bearer ${source.token}` });
      const file = join(mkdtempSync(join(tmpdir(), 'plant-store-bench-floor-')), 'answer.json');
      writeFileSync(file, serialiseAnswer(answer));
      const running = await peer(FLOOR, 'floor-server.ts', ['get'], () => ({ FLOOR_ANSWER: file }), '/', false).start(
        port,
      );
      return { ...running, token: source.token, tokens: source.tokens };
    },
  };
}
export const FLOOR = 'floor: node:http writing the same answer';

/** The variant measured against the plain SQLite target on the mixed workload: what a webhook costs the API. */
export const WEBHOOK_ON = 'plant-store, SQLite, one webhook subscription (mixed only)';

/**
 * The SQLite target with one webhook subscription, added through the CLI once seeding is done (so the run delivers
 * only the plants its own creates make), to a receiver in this process that answers 204 at once.
 */
/** Per round, the deliveries the webhook variant's receiver got while the variant ran (for the report). */
export const webhookDeliveries: number[] = [];

function withWebhookSubscription(name: string): Target {
  let databaseUrl = '';
  const base = plantStore(name, () => (databaseUrl = sqliteFile()), { WEBHOOK_ALLOW_PRIVATE: 'true' }, ['mixed']);
  return {
    name,
    scenarios: base.scenarios,
    async start(port) {
      let delivered = 0;
      const receiver = createServer((request, response) => {
        request.resume().on('end', () => {
          delivered++;
          response.writeHead(204).end();
        });
      });
      await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
      const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      const running = await base.start(port);
      await promisify(execFile)(process.execPath, [BIN, 'webhook', 'add', '--url', hook], {
        env: { ...process.env, DATABASE_URL: databaseUrl, WEBHOOK_ALLOW_PRIVATE: 'true' },
      });
      return {
        ...running,
        async stop(keepData) {
          await running.stop(keepData);
          receiver.closeAllConnections();
          receiver.close();
          webhookDeliveries.push(delivered);
          console.log(`  webhook receiver: ${delivered} deliveries`);
        },
      };
    },
  };
}

/** The targets' names, which the report and the goals look figures up by. */
export const SQLITE = 'plant-store, SQLite, defaults';
export const SQLITE_TUNED = 'plant-store, SQLite, tuned';
export const PER_REQUEST = 'plant-store, SQLite, tuned, commit per request';
export const POSTGRES = 'plant-store, PostgreSQL, defaults';
export const POSTGRES_TUNED = 'plant-store, PostgreSQL, tuned';
export const BARE = 'bare Fastify, from memory (ceiling)';
export const EXPRESS = 'Express 5 + express-openapi-validator, SQLite';
export const NAIVE = 'naive Fastify + pg, PostgreSQL (no cache)';

export const bareFastify = (): Target => peer(BARE, 'bare-fastify.ts', ['get'], () => ({}), '/plants', false);
export const expressPeer = (): Target =>
  peer(
    EXPRESS,
    'express-peer.ts',
    ['get', 'create', 'delete', 'mixed'],
    () => ({ DATABASE_PATH: join(mkdtempSync(join(tmpdir(), 'plant-store-bench-express-')), 'peer.db') }),
    '/nope',
  );
/** plant-store on one store in one of its two configurations (configurations.ts). */
export const plantStoreOn = (store: 'SQLite' | 'PostgreSQL', configuration: 'defaults' | 'tuned'): Target =>
  plantStore(
    `plant-store, ${store}, ${configuration}`,
    store === 'SQLite' ? sqliteFile : postgresSchema('bench'),
    configuration === 'defaults' ? DEFAULTS : TUNED,
  );

/** The closed-loop stage's targets: the headline ones on every scenario, and the peers and variants beside them. */
export function targets(withPostgres: boolean): Target[] {
  const list: Target[] = [
    plantStoreOn('SQLite', 'defaults'),
    plantStoreOn('SQLite', 'tuned'),
    withWebhookSubscription(WEBHOOK_ON),
    plantStore(PER_REQUEST, sqliteFile, { SQLITE_GROUP_COMMIT: 'false' }, ['create', 'delete']),
  ];
  if (withPostgres) list.push(plantStoreOn('PostgreSQL', 'defaults'), plantStoreOn('PostgreSQL', 'tuned'));
  list.push(bareFastify(), expressPeer());
  if (withPostgres) {
    list.push(
      peer(
        NAIVE,
        'naive-pg.ts',
        ['get', 'create', 'delete', 'mixed'],
        () => ({ DATABASE_URL: POSTGRES_URL, SCHEMA: `bench_naive_${Date.now()}` }),
        '/nope',
      ),
    );
  }
  return list;
}
