// Issue 10, High 2: the SQLite page cache is bounded in bytes. Clients choose `limit` and forge cursors freely, so a
// walk over many distinct pages of large plants must leave the process within the cache budget, not grow by every page.
import { readFileSync } from 'node:fs';
import { encodeCursor } from '@plant-store/contract';
import { createTestDatabase, type TestDatabase } from '@plant-store/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueToken } from '../../../src/auth/tokens.js';
import { openStore } from '../../../src/store/open-store.js';
import { type ServerProcess, startServerProcess } from '../../support/process.js';

const BUDGET = 8 * 1024 * 1024;
const PLANTS = 1_000;
const WALK = 150;

function rssBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
}

let database: TestDatabase;
let server: ServerProcess | undefined;
let token: string;

beforeAll(async () => {
  database = createTestDatabase('sqlite');
  const store = await openStore(database.url);
  await store.migrate();
  token = (await issueToken(store.tokens, { subject: 'walker' })).token;
  // 200 emoji per name: each page of 1000 plants is about 1 MB of JSON (2 MB as a JavaScript string).
  const name = '🌿'.repeat(100) + '🌵'.repeat(100);
  await Promise.all(Array.from({ length: PLANTS }, (_, i) => store.plants.create('walker', { id: BigInt(i), name })));
  await store.close();
  server = await startServerProcess({
    DATABASE_URL: database.url,
    PAGE_CACHE_BYTES: String(BUDGET),
    RATE_LIMIT_MAX: '100000',
    // A heap near what the service needs makes the collector return garbage promptly, so RSS shows what is kept;
    // an unbounded cache (the walk touches ~500 MB of pages) runs out of it.
    NODE_OPTIONS: '--max-old-space-size=160',
    // This walk is about memory: pauses of a loaded machine must not turn it into 503s from load shedding.
    MAX_EVENT_LOOP_DELAY_MS: '0',
  });
}, 120_000);

afterAll(async () => {
  server?.child.kill('SIGKILL');
  await server?.exited;
  await database?.drop();
});

describe('the SQLite page cache', () => {
  it('stays within PAGE_CACHE_BYTES through a walk of forged cursors over large pages', async () => {
    const get = async (url: string) => {
      const response = await fetch(`${server!.url}${url}`, { headers: { authorization: `Bearer ${token}` } });
      expect(response.status).toBe(200);
      return response.text();
    };
    // Warm up: the process's steady size with a few pages cached.
    for (let i = 0; i < 10; i++) await get(`/plants?limit=1000&cursor=${encodeCursor(BigInt(-1 - i))}`);
    const before = rssBytes(server!.child.pid!);
    let peak = before;
    // Every forged cursor names another page of up to 1000 plants: ~2 MB each, ~500 MB if all were kept.
    for (let i = 0; i < WALK; i++) {
      const after = BigInt(-1000 + (i % 2 === 0 ? i : -i));
      await get(`/plants?limit=${1000 - (i % 7)}&cursor=${encodeCursor(after)}`);
      if (i % 10 === 0) peak = Math.max(peak, rssBytes(server!.child.pid!));
    }
    const growth = Math.max(peak, rssBytes(server!.child.pid!)) - before;
    console.info(
      `RSS before ${(before / 2 ** 20).toFixed(0)} MiB, growth ${(growth / 2 ** 20).toFixed(0)} MiB over ${WALK} ` +
        `pages, budget ${BUDGET / 2 ** 20} MiB`,
    );
    // The budget, plus room for garbage the collector has not returned yet (pages are ~2 MB of transient strings).
    expect(growth).toBeLessThan(BUDGET + 96 * 2 ** 20);
  }, 120_000);
});
