// Several real server processes on one PostgreSQL behave as one service: shared data, one winner per id,
// rate limits shared through Redis; and `serve --workers N` runs N processes on one port.
import { randomBytes } from 'node:crypto';
import { createTestDatabase, type TestDatabase, waitFor } from '@plant-store/test-kit';
import { type ServerProcess, startServerProcess, stopAll, tokenIn } from '@plant-store/test-kit/server-process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let database: TestDatabase;
const processes: ServerProcess[] = [];

const tokenFor = (subject: string) => tokenIn(database.url, subject);

async function start(env: Record<string, string> = {}, args: string[] = []): Promise<ServerProcess> {
  const server = await startServerProcess({ DATABASE_URL: database.url, ...env }, args);
  processes.push(server);
  return server;
}

function send(url: string, token: string, method = 'GET', body?: unknown) {
  return fetch(url, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
}

beforeAll(() => {
  database = createTestDatabase('postgres');
});
afterAll(async () => {
  await stopAll(processes);
  await database.drop();
});

describe('two instances on one PostgreSQL', () => {
  let a: ServerProcess;
  let b: ServerProcess;
  let token: string;
  const subject = `multi-${randomBytes(4).toString('hex')}`;

  beforeAll(async () => {
    // Started together, so both race to migrate; the advisory lock lets one apply the schema.
    [a, b] = await Promise.all([
      start({ REDIS_URL: 'redis://127.0.0.1:6379', RATE_LIMIT_MAX: '1000' }),
      start({ REDIS_URL: 'redis://127.0.0.1:6379', RATE_LIMIT_MAX: '1000' }),
    ]);
    token = await tokenFor(subject);
  });

  it('lists and deletes through one what was created through the other', async () => {
    expect((await send(`${a.url}/plants`, token, 'POST', { id: 1, name: 'shared' })).status).toBe(200);
    expect(await (await send(`${b.url}/plants`, token)).json()).toEqual([{ name: 'shared' }]);
    expect((await send(`${b.url}/plants/1`, token, 'DELETE')).status).toBe(204);
    expect((await send(`${a.url}/plants/1`, token, 'DELETE')).status).toBe(404);
  });

  it('gives exactly one 200 to concurrent creates of one id across instances', async () => {
    const attempts = Array.from({ length: 40 }, (_, i) =>
      send(`${i % 2 ? a.url : b.url}/plants`, token, 'POST', { id: 99, name: `race ${i}` }).then((r) => r.status),
    );
    const statuses = await Promise.all(attempts);
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status === 409)).toHaveLength(39);
  });
});

describe('rate limits across instances', () => {
  it('share one budget through Redis, and keep separate budgets without it', async () => {
    const shared = await Promise.all([
      start({ REDIS_URL: 'redis://127.0.0.1:6379', RATE_LIMIT_MAX: '4', RATE_LIMIT_WINDOW_MS: '60000' }),
      start({ REDIS_URL: 'redis://127.0.0.1:6379', RATE_LIMIT_MAX: '4', RATE_LIMIT_WINDOW_MS: '60000' }),
    ]);
    // Counters are shared once each instance's Redis connection is ready (until then each limits on its own).
    for (const server of shared) {
      await waitFor('the instance to share its counters through Redis', async () => {
        const answer = await fetch(`${server.url}/readyz`);
        return answer.status === 200 && ((await answer.json()) as { status: string }).status === 'ok';
      });
    }
    const sharedToken = await tokenFor(`rl-shared-${randomBytes(4).toString('hex')}`);
    const sharedStatuses: number[] = [];
    for (let i = 0; i < 6; i++) sharedStatuses.push((await send(`${shared[i % 2]!.url}/plants`, sharedToken)).status);
    expect(sharedStatuses).toEqual([200, 200, 200, 200, 429, 429]);

    const separate = await Promise.all([
      start({ RATE_LIMIT_MAX: '4', RATE_LIMIT_WINDOW_MS: '60000' }),
      start({ RATE_LIMIT_MAX: '4', RATE_LIMIT_WINDOW_MS: '60000' }),
    ]);
    const separateToken = await tokenFor(`rl-separate-${randomBytes(4).toString('hex')}`);
    const separateStatuses: number[] = [];
    for (let i = 0; i < 8; i++)
      separateStatuses.push((await send(`${separate[i % 2]!.url}/plants`, separateToken)).status);
    expect(separateStatuses).toEqual(Array(8).fill(200));
    expect((await send(`${separate[0]!.url}/plants`, separateToken)).status).toBe(429);
  });
});

describe('serve --workers', () => {
  it('runs N worker processes that share one port', async () => {
    const server = await start({}, ['--workers', '2']);
    const token = await tokenFor(`workers-${randomBytes(4).toString('hex')}`);
    const listening = () =>
      new Set([...server.output().matchAll(/"pid":(\d+)[^\n]*Server listening/g)].map((m) => m[1]));
    await waitFor('both workers to listen', () => listening().size >= 2);
    const pids = listening();
    expect(pids.size).toBe(2);
    const statuses = await Promise.all(Array.from({ length: 20 }, () => send(`${server.url}/plants`, token)));
    expect(statuses.map((r) => r.status)).toEqual(Array(20).fill(200));
  });
});
