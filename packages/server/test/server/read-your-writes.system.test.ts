// Read-your-writes across processes and instances, as an outside client meets it: a create or delete answered 2xx
// is in (or out of) the very next list, whichever worker or instance answers it, each request on a new connection,
// while other clients keep every process's cached page busy. PostgreSQL: `serve --workers 2` beside a second
// instance; SQLite: `serve --workers 2` on one file.
import { randomBytes } from 'node:crypto';
import { createTestDatabase, type TestDatabase, waitFor } from '@plant-store/test-kit';
import { backgroundLists, probeReadYourWrites, sendOnce } from '@plant-store/test-kit/read-your-writes';
import { type ServerProcess, startServerProcess, stopAll, tokenIn } from '@plant-store/test-kit/server-process';
import { afterAll, afterEach, describe, expect, it } from 'vitest';

const PROBES = 100;
const processes: ServerProcess[] = [];
const databases: TestDatabase[] = [];

async function start(database: TestDatabase, args: string[] = []): Promise<ServerProcess> {
  const server = await startServerProcess({ DATABASE_URL: database.url, RATE_LIMIT_MAX: '0' }, args);
  processes.push(server);
  if (args.includes('--workers')) {
    const listening = () => new Set([...server.output().matchAll(/"pid":(\d+)[^\n]*Server listening/g)]).size;
    await waitFor('both workers to listen', () => listening() >= 2);
  }
  return server;
}

/** The probes across `servers` while background lists of the same principal run through every one of them. */
async function probe(database: TestDatabase, servers: readonly string[]): Promise<string[]> {
  const token = await tokenIn(database.url, `ryw-${randomBytes(4).toString('hex')}`);
  const stop = backgroundLists(servers, token);
  try {
    return await probeReadYourWrites(servers, token, { probes: PROBES });
  } finally {
    await stop();
  }
}

afterEach(async () => {
  await stopAll(processes.splice(0));
});
afterAll(async () => {
  await Promise.all(databases.map((database) => database.drop()));
});

describe('read-your-writes', () => {
  it('holds on PostgreSQL across two workers and two instances', async () => {
    const database = createTestDatabase('postgres');
    databases.push(database);
    const workers = await start(database, ['--workers', '2']);
    const other = await start(database);
    expect(await probe(database, [workers.url, other.url])).toEqual([]);
  }, 120_000);

  it('holds on SQLite across two workers', async () => {
    const database = createTestDatabase('sqlite');
    databases.push(database);
    const workers = await start(database, ['--workers', '2']);
    expect(await probe(database, [workers.url])).toEqual([]);
  }, 120_000);
});

// A page and whether more plants follow come from one snapshot: with another worker committing creates while lists
// are read and cached, no page shorter than its limit says more follow, then or after the writes stopped.
describe('whole pages', () => {
  it('holds on SQLite across two workers under concurrent creates', async () => {
    const database = createTestDatabase('sqlite');
    databases.push(database);
    const workers = await start(database, ['--workers', '2']);
    const token = await tokenIn(database.url, `pages-${randomBytes(4).toString('hex')}`);
    const broken: string[] = [];
    const listOnce = async () => {
      const answer = await sendOnce(`${workers.url}/plants?limit=1000`, token);
      const plants = answer.status === 200 ? (JSON.parse(answer.body) as unknown[]).length : -1;
      if (plants < 1000 && answer.headers.link !== undefined)
        broken.push(`${plants} plants with ${answer.headers.link}`);
      return plants;
    };
    let creating = true;
    const readers = Array.from({ length: 4 }, async () => {
      while (creating) await listOnce();
    });
    const creators = Array.from({ length: 8 }, async (_, creator) => {
      for (let i = 0; i < 50; i++) {
        const id = creator * 50 + i + 1;
        const created = await sendOnce(`${workers.url}/plants`, token, 'POST', { id, name: `plant ${id}` });
        if (created.status !== 200) broken.push(`create ${id}: ${created.status} ${created.body}`);
      }
    });
    await Promise.all(creators);
    creating = false;
    await Promise.all(readers);
    const after = await Promise.all(Array.from({ length: 20 }, listOnce));
    expect(broken).toEqual([]);
    expect(after).toEqual(Array.from({ length: 20 }, () => 400));
  }, 120_000);
});
