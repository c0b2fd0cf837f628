// The PgBouncer configuration docs/deployment.md prints, loaded by Debian's PgBouncer 1.18 exactly as printed (read
// from the manual, every line parsed by PgBouncer; only the port, auth_file, pidfile and the upstream database are
// this machine's), and the service migrating and serving through it with DATABASE_DIRECT_URL, as the manual's
// command line does.
import { createTestDatabase, POSTGRES_URL, type TestDatabase } from '@plant-store/test-kit';
import { manualBlock } from '@plant-store/test-kit/manual';
import { type PgBouncer, startPgBouncer } from '@plant-store/test-kit/pgbouncer';
import { sendOnce } from '@plant-store/test-kit/read-your-writes';
import { type ServerProcess, startServerProcess, stopAll, tokenIn } from '@plant-store/test-kit/server-process';
import { afterAll, describe, expect, it } from 'vitest';

const HEADING = '## PostgreSQL behind PgBouncer';
const ini = manualBlock('deployment.md', HEADING, 'ini');
const commandLine = manualBlock('deployment.md', HEADING, 'sh');

let bouncer: PgBouncer | undefined;
let database: TestDatabase | undefined;
const processes: ServerProcess[] = [];

afterAll(async () => {
  await stopAll(processes);
  await bouncer?.stop();
  await database?.drop();
});

/** `key = value` of the ini's lines, values as PgBouncer reads them (up to the end of the line). */
const setting = (key: string) => new RegExp(`^${key} = (.*)$`, 'm').exec(ini)?.[1];

describe("the manual's PgBouncer configuration", () => {
  it('has no comment after a value, and its command line points where the file listens', () => {
    // PgBouncer reads "trust ; or md5" as the value of auth_type, and refuses to start.
    for (const line of ini.split('\n')) expect(line, line).not.toMatch(/^[^;#]*=.*[;#]/);
    const [database] = /^\[databases\]\n(\S+) = .*\bport=(\d+)/m.exec(ini)?.slice(1) ?? [];
    const url = new URL(/DATABASE_URL='([^']+)'/.exec(commandLine)?.[1] ?? '');
    const direct = new URL(/DATABASE_DIRECT_URL='([^']+)'/.exec(commandLine)?.[1] ?? '');
    expect([url.port, url.pathname]).toEqual([setting('listen_port'), `/${database}`]);
    expect(direct.port).toBe(/\bport=(\d+)/.exec(ini)?.[1]);
    expect(setting('pool_mode')).toBe('transaction');
  });

  it('loads in Debian’s PgBouncer as printed, and the service migrates and serves through it', async () => {
    bouncer = await startPgBouncer({ manual: ini });
    database = createTestDatabase('postgres');
    const url = bouncer.url(database.schema);
    const server = await startServerProcess({
      DATABASE_URL: url,
      DATABASE_DIRECT_URL: POSTGRES_URL,
      RATE_LIMIT_MAX: '0',
    });
    processes.push(server);
    const token = await tokenIn(url, 'manual-reader');
    expect((await sendOnce(`${server.url}/plants`, token, 'POST', { id: 7, name: 'Fern' })).status).toBe(200);
    expect(JSON.parse((await sendOnce(`${server.url}/plants`, token)).body)).toEqual([{ name: 'Fern' }]);
    expect(bouncer.log()).not.toMatch(/ERROR|FATAL/);
  }, 120_000);
});
