// Durability: SIGKILL the real server process in the middle of a stream of creates, restart it, and find every
// create that had been answered 200 still there (WAL + synchronous=FULL).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { issueToken } from '../src/services/tokens.js';
import { openStore } from '../src/store/open-store.js';
import { startServerProcess } from './support/process.js';

const dir = mkdtempSync(join(tmpdir(), 'plant-store-crash-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function listAllNames(url: string, token: string): Promise<Set<string>> {
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

it('keeps every acknowledged create across SIGKILL', async () => {
  const databaseUrl = `sqlite:${join(dir, 'crash.db')}`;
  const setup = await openStore(databaseUrl);
  await setup.migrate();
  const { token } = await issueToken(setup.tokens, { subject: 'crash' });
  await setup.close();

  const acknowledged: string[] = [];
  for (let cycle = 0; cycle < 3; cycle++) {
    const server = await startServerProcess({ DATABASE_URL: databaseUrl, RATE_LIMIT_MAX: '0' });
    let nextId = cycle * 1_000_000;
    let killed = false;
    const writer = async () => {
      while (!killed) {
        const id = nextId++;
        try {
          const response = await fetch(`${server.url}/plants`, {
            method: 'POST',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            body: JSON.stringify({ id, name: `p${id}` }),
          });
          if (response.status === 200) acknowledged.push(`p${id}`);
          else expect(response.status).toBe(200);
        } catch {
          // the connection died with the process: this create was never acknowledged
        }
      }
    };
    const writers = Array.from({ length: 8 }, writer);
    await new Promise((resolve) => setTimeout(resolve, 400 + cycle * 150));
    server.child.kill('SIGKILL');
    killed = true;
    expect(await server.exited).toBe('SIGKILL');
    await Promise.all(writers);
  }

  expect(acknowledged.length).toBeGreaterThan(20);
  const server = await startServerProcess({ DATABASE_URL: databaseUrl });
  try {
    const stored = await listAllNames(server.url, token);
    const missing = acknowledged.filter((name) => !stored.has(name));
    expect(missing).toEqual([]);
  } finally {
    server.child.kill('SIGTERM');
    await server.exited;
  }
}, 60_000);
