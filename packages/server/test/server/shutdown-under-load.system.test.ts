// Graceful shutdown under load: SIGTERM while many clients send creates on fresh connections. Every request the
// server took in is answered and stored. A connection still queued in the kernel when the listener closes is reset
// (or refused, later) without its request ever being read: such a create must not have happened.

import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '@plant-store/test-kit';
import { pageText } from '@plant-store/test-kit/page-text';
import { startServerProcess } from '@plant-store/test-kit/server-process';
import { afterAll, expect, it } from 'vitest';
import { issueToken } from '../../src/auth/tokens.js';
import { openStore } from '../../src/store/open-store.js';

const dir = mkdtempSync(join(tmpdir(), 'plant-store-shutdown-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function post(url: string, token: string, id: number): Promise<number | string> {
  return new Promise((resolve) => {
    const body = JSON.stringify({ id, name: `p${id}` });
    const req = request(
      `${url}/plants`,
      {
        method: 'POST',
        agent: false,
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          connection: 'close',
        },
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    req.end(body);
  });
}

it('answers every accepted request when stopped under load', async () => {
  const databaseUrl = `sqlite:${join(dir, 'db.sqlite')}`;
  const setup = await openStore(databaseUrl);
  await setup.migrate();
  const { token } = await issueToken(setup.tokens, { subject: 'shutdown' });
  await setup.close();
  const server = await startServerProcess({ DATABASE_URL: databaseUrl, RATE_LIMIT_MAX: '0' });

  const outcomes: { id: number; outcome: number | string }[] = [];
  let nextId = 0;
  let stopped = false;
  const client = async () => {
    while (!stopped) {
      const id = nextId++;
      const outcome = await post(server.url, token, id);
      outcomes.push({ id, outcome });
      if (outcome === 'ECONNREFUSED') stopped = true;
    }
  };
  const clients = Array.from({ length: 16 }, client);
  // Under load: the clients have had answers flowing before the signal comes.
  await waitFor('the load to get going', () => outcomes.filter(({ outcome }) => outcome === 200).length >= 100);
  server.child.kill('SIGTERM');
  await Promise.race([Promise.all(clients), new Promise((resolve) => setTimeout(resolve, 10_000))]);
  stopped = true;
  await Promise.all(clients);

  expect(await server.exited).toBe(0);
  const store = await openStore(databaseUrl);
  const stored = new Set<string>();
  for (let after: bigint | undefined, more = true; more; ) {
    const page = await store.plants.list('shutdown', after === undefined ? { limit: 1000 } : { limit: 1000, after });
    for (const plant of JSON.parse(pageText(page)) as { name: string }[]) stored.add(plant.name);
    [after, more] = [page.lastId, page.hasMore];
  }
  await store.close();

  const answered = outcomes.filter(({ outcome }) => outcome === 200);
  expect(answered.length).toBeGreaterThan(50);
  expect(answered.filter(({ id }) => !stored.has(`p${id}`))).toEqual([]);
  const unanswered = outcomes.filter(({ outcome }) => outcome !== 200);
  expect(unanswered.filter(({ outcome }) => outcome !== 'ECONNREFUSED' && outcome !== 'ECONNRESET')).toEqual([]);
  // Unanswered means never taken in: none of those creates happened.
  expect(unanswered.filter(({ id }) => stored.has(`p${id}`))).toEqual([]);
}, 60_000);
