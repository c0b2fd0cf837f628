// The service behind PgBouncer in transaction mode (Debian's package, its defaults): it migrates and starts through it,
// with DATABASE_DIRECT_URL and without, lists, creates and deletes work (no startup parameter refused, no prepared
// statement missing), and read-your-writes holds across instances; a start-up refused names what was refused.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { conformanceCommand } from '@plant-store/conformance';
import { createTestDatabase, POSTGRES_URL, type TestDatabase } from '@plant-store/test-kit';
import { type PgBouncer, startPgBouncer } from '@plant-store/test-kit/pgbouncer';
import { backgroundLists, probeReadYourWrites, sendOnce } from '@plant-store/test-kit/read-your-writes';
import { BIN, type ServerProcess, startServerProcess, stopAll, tokenIn } from '@plant-store/test-kit/server-process';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { issueToken } from '../../../src/auth/tokens.js';
import { openStore } from '../../../src/store/open-store.js';
import { postgresMigrations } from '../../../src/store/postgres/migrations.js';

let bouncer: PgBouncer;
const databases: TestDatabase[] = [];
const processes: ServerProcess[] = [];

beforeAll(async () => {
  bouncer = await startPgBouncer();
});
afterEach(async () => {
  await stopAll(processes.splice(0));
});
afterAll(async () => {
  await Promise.all(databases.map((database) => database.drop()));
  await bouncer?.stop();
});

/** A fresh schema, reached through PgBouncer (`url`) and directly (`direct`). */
function schemaBehindBouncer(): { url: string; direct: string; schema: string } {
  const database = createTestDatabase('postgres');
  databases.push(database);
  const schema = database.schema!;
  return { url: bouncer.url(schema), direct: POSTGRES_URL, schema };
}

async function start(env: Record<string, string>, args: string[] = []): Promise<ServerProcess> {
  const server = await startServerProcess({ RATE_LIMIT_MAX: '0', ...env }, args);
  processes.push(server);
  return server;
}

async function migrationsIn(schema: string): Promise<number> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    return (await client.query(`SELECT count(*)::int AS n FROM "${schema}".schema_migrations`)).rows[0].n;
  } finally {
    await client.end();
  }
}

/** Creates, lists and deletes through `servers`, then runs read-your-writes probes under background lists. */
async function exercise(servers: string[], databaseUrl: string) {
  const token = await tokenIn(databaseUrl, 'bounced');
  for (const server of servers) expect((await fetch(`${server}/readyz`)).status).toBe(200);
  expect((await sendOnce(`${servers[0]}/plants`, token, 'POST', { id: 1000, name: 'Fern' })).status).toBe(200);
  expect(JSON.parse((await sendOnce(`${servers.at(-1)}/plants`, token)).body)).toEqual([{ name: 'Fern' }]);
  expect((await sendOnce(`${servers.at(-1)}/plants/1000`, token, 'DELETE')).status).toBe(204);
  const stop = backgroundLists(servers, token);
  try {
    expect(await probeReadYourWrites(servers, token, { probes: 40 })).toEqual([]);
  } finally {
    await stop();
  }
}

describe('behind PgBouncer in transaction mode', () => {
  it('migrates, starts and keeps read-your-writes with everything through PgBouncer', async () => {
    const { url, schema } = schemaBehindBouncer();
    const [a, b] = await Promise.all([start({ DATABASE_URL: url }), start({ DATABASE_URL: url })]);
    expect(await migrationsIn(schema)).toBe(postgresMigrations.length);
    await exercise([a!.url, b!.url], url);
    expect(`${a!.output()}${b!.output()}`).not.toMatch(/prepared statement|"statusCode":500/);
  }, 120_000);

  it('migrates and listens on DATABASE_DIRECT_URL, and keeps read-your-writes across workers and instances', async () => {
    const { url, direct, schema } = schemaBehindBouncer();
    const env = { DATABASE_URL: url, DATABASE_DIRECT_URL: direct };
    const [a, b] = await Promise.all([start(env, ['--workers', '2']), start(env)]);
    expect(await migrationsIn(schema)).toBe(postgresMigrations.length);
    await exercise([a!.url, b!.url], url);
    // The black-box suite, against the workers behind PgBouncer.
    const store = await openStore(url);
    const issue = async (subject: string, scopes?: ['read']) =>
      (await issueToken(store.tokens, { subject, ...(scopes ? { scopes } : {}) })).token;
    const [alice, bob, reader] = await Promise.all([
      issue('conformance-alice'),
      issue('conformance-bob'),
      issue('conformance-reader', ['read']),
    ]).finally(() => store.close());
    const flags = { 'base-url': a!.url, token: alice, 'second-token': bob, 'read-token': reader, requests: '60' };
    const output: string[] = [];
    const io = { stdout: (line: string) => output.push(line), stderr: (line: string) => output.push(line), env: {} };
    const code = await conformanceCommand(
      Object.entries(flags).flatMap(([flag, value]) => [`--${flag}`, value]),
      io,
    );
    expect(code, output.join('\n')).toBe(0);
  }, 180_000);

  it('names the startup parameter PgBouncer refused when start-up fails', async () => {
    const { url } = schemaBehindBouncer();
    const refused = `${url}&options=${encodeURIComponent('-c statement_timeout=5000')}`;
    const failure = await promisify(execFile)(process.execPath, [BIN, 'serve'], {
      env: { ...process.env, HOST: '127.0.0.1', PORT: '0', METRICS_PORT: 'off', DATABASE_URL: refused },
      timeout: 30_000,
    }).then(
      () => undefined,
      (error: { code: number; stderr: string }) => error,
    );
    expect(failure?.code).toBe(1);
    expect(failure?.stderr).toMatch(/refused: unsupported startup parameter: options/);
    expect(failure?.stderr).not.toMatch(/unreachable/);
  }, 60_000);
});
