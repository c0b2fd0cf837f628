// Durability under SIGKILL: cycles of a concurrent stream of creates and deletes against the real server process,
// each ended by SIGKILL at a random moment. After every restart, each acknowledged create is there, each
// acknowledged delete stays deleted, and SQLite's integrity check passes. CRASH_CYCLES sets the count (CI: 20).
// The moments and the mix of writes come from a seed the run prints; PLANT_STORE_TEST_SEED replays it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seededRandom, waitFor } from '@plant-store/test-kit';
import { startServerProcess } from '@plant-store/test-kit/server-process';
import Database from 'better-sqlite3';
import { afterAll, expect, it } from 'vitest';
import { issueToken } from '../../../src/auth/tokens.js';
import { openStore } from '../../../src/store/open-store.js';

const CYCLES = Number(process.env.CRASH_CYCLES ?? 20);
const WRITERS = 8;
// Each cycle is killed only after the writers have made real progress (counted, not timed, so a loaded machine cannot
// turn a cycle into a no-op): per cycle at least this many more creates standing and deletes acknowledged overall.
// The margin covers entries that writers in flight at the kill may still drop (one per writer).
const CREATES_PER_CYCLE = 12;
const DELETES_PER_CYCLE = 2;
const random = seededRandom('crash-durability');
const dir = mkdtempSync(join(tmpdir(), 'plant-store-crash-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function storedNames(url: string, token: string): Promise<Set<string>> {
  const names = new Set<string>();
  let next: string | undefined = '/plants?limit=1000';
  while (next) {
    const response: Response = await fetch(new URL(next, url), { headers: { authorization: `Bearer ${token}` } });
    expect(response.status).toBe(200);
    for (const plant of (await response.json()) as { name: string }[]) names.add(plant.name);
    next = /^<([^>]+)>; rel="next"$/.exec(response.headers.get('link') ?? '')?.[1];
  }
  return names;
}

it(`loses nothing acknowledged across ${CYCLES} SIGKILLs during creates and deletes`, async () => {
  const path = join(dir, 'crash.db');
  const databaseUrl = `sqlite:${path}`;
  const setup = await openStore(databaseUrl);
  await setup.migrate();
  const { token } = await issueToken(setup.tokens, { subject: 'crash' });
  await setup.close();

  // The last acknowledged state of each id: true = created, false = deleted. Ids of one writer are touched in order.
  const acknowledged = new Map<number, boolean>();
  let nextId = 0;
  for (let cycle = 0; cycle < CYCLES; cycle++) {
    const server = await startServerProcess({ DATABASE_URL: databaseUrl, RATE_LIMIT_MAX: '0' });
    if (cycle > 0) {
      const names = await storedNames(server.url, token);
      for (const [id, present] of acknowledged)
        expect(names.has(`p${id}`), `p${id} after cycle ${cycle}`).toBe(present);
    }
    let killed = false;
    const send = async (method: string, path: string, body?: string) => {
      const response = await fetch(`${server.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        ...(body ? { body } : {}),
      });
      await response.arrayBuffer();
      return response.status;
    };
    const writer = async () => {
      const mine: number[] = [];
      while (!killed) {
        try {
          if (mine.length > 3 && random.next() < 0.3) {
            const id = mine.shift()!;
            const status = await send('DELETE', `/plants/${id}`).catch((error: unknown) => {
              // No answer: the delete may or may not have happened, so this id proves nothing either way.
              acknowledged.delete(id);
              throw error;
            });
            if (status === 204) acknowledged.set(id, false);
          } else {
            const id = nextId++;
            mine.push(id);
            if ((await send('POST', '/plants', JSON.stringify({ id, name: `p${id}` }))) === 200)
              acknowledged.set(id, true);
          }
        } catch {
          // the process died under this request: it was never acknowledged
        }
      }
    };
    const writers = Array.from({ length: WRITERS }, writer);
    const count = (present: boolean) => [...acknowledged.values()].filter((value) => value === present).length;
    await waitFor(`progress in cycle ${cycle}`, () => {
      return (
        count(true) >= (cycle + 1) * CREATES_PER_CYCLE + WRITERS && count(false) >= (cycle + 1) * DELETES_PER_CYCLE
      );
    });
    await new Promise((resolve) => setTimeout(resolve, random.int(0, 300)));
    server.child.kill('SIGKILL');
    expect(await server.exited).toBe('SIGKILL');
    killed = true;
    await Promise.all(writers);
  }

  const server = await startServerProcess({ DATABASE_URL: databaseUrl });
  try {
    const names = await storedNames(server.url, token);
    const lost = [...acknowledged].filter(([id, present]) => names.has(`p${id}`) !== present);
    expect(lost).toEqual([]);
    expect([...acknowledged.values()].filter(Boolean).length).toBeGreaterThan(CYCLES * 10);
    expect([...acknowledged.values()].filter((present) => !present).length).toBeGreaterThan(CYCLES);
  } finally {
    server.child.kill('SIGTERM');
    await server.exited;
  }
  const db = new Database(path, { readonly: true });
  expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
  db.close();
}, 240_000);
