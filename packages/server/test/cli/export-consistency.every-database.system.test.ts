// `plant-store export` (its own process) while a serving app takes creates from several clients: the archive is the
// database at one moment. Every create acknowledged before the export started is in it; every owner's version is
// its number of plants (each create moves it by one, in the create's own transaction); each plant has its one
// pending delivery and no delivery lacks its plant (the event is queued in the plant's transaction): tables read at
// different moments would disagree.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  createTestDatabase,
  startTestServer,
  TEST_DATABASE,
  type TestDatabase,
  type TestServer,
} from '@plant-store/test-kit';
import { BIN } from '@plant-store/test-kit/server-process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const WRITERS = 6;
const SEEDED = 6_000;
const run = promisify(execFile);

let folder: string;
let database: TestDatabase;
let server: TestServer;
let token: string;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'plant-store-consistency-'));
  database = createTestDatabase(TEST_DATABASE);
  server = await startTestServer({
    // Deliveries to a port nobody listens on, retried only in an hour: they stay pending.
    env: {
      DATABASE_URL: database.url,
      RATE_LIMIT_MAX: '0',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WEBHOOK_RETRY_FIRST_MS: '3600000',
    },
  });
  await server.store.webhooks.addSubscription({
    id: 'wh_all',
    url: 'http://127.0.0.1:9/',
    subject: null,
    secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  });
  token = await server.token('writer');
  // Enough rows that the export takes a while, written through the store as the API writes them.
  for (let start = 0; start < SEEDED; start += 500) {
    await Promise.all(
      Array.from({ length: 500 }, (_, index) =>
        server.store.plants.create(`seed${index % 10}`, { id: BigInt(start + index + 1), name: 'seeded' }),
      ),
    );
  }
});
afterAll(async () => {
  await server?.close();
  await database?.drop();
  await rm(folder, { recursive: true, force: true });
});

describe('an export under concurrent creates', () => {
  it('holds every create acknowledged before it began, and tables from one moment', async () => {
    const acknowledged: number[] = [];
    let writing = true;
    let next = 1;
    const writers = Array.from({ length: WRITERS }, async () => {
      while (writing) {
        const id = next++;
        const answer = await fetch(`${server.url}/plants`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ id, name: `live ${id}` }),
        });
        expect(answer.status).toBe(200);
        acknowledged.push(id);
      }
    });
    while (acknowledged.length < 200) await new Promise((resolve) => setTimeout(resolve, 5));
    const before = [...acknowledged];
    const file = join(folder, 'live.jsonl');
    const exporting = run(process.execPath, [BIN, 'export', '--output', file, '--json'], {
      env: { ...process.env, DATABASE_URL: database.url },
    });
    const done = await exporting;
    const during = acknowledged.length - before.length;
    writing = false;
    await Promise.all(writers);
    expect(JSON.parse(done.stdout).records).toBeGreaterThan(SEEDED);

    const records = readFileSync(file, 'utf8')
      .split('\n')
      .slice(1, -2)
      .map(
        (line) => JSON.parse(line) as { kind: string; owner?: string; id?: string; version?: string; payload?: string },
      );
    const live = new Set(records.filter((r) => r.kind === 'plant' && r.owner === 'writer').map((r) => Number(r.id)));
    for (const id of before) expect(live.has(id)).toBe(true);
    // Creates went on while it ran.
    expect(during).toBeGreaterThan(0);
    const plants = records.filter((r) => r.kind === 'plant');
    const byOwner = new Map<string, number>();
    for (const plant of plants) byOwner.set(plant.owner!, (byOwner.get(plant.owner!) ?? 0) + 1);
    for (const owner of records.filter((r) => r.kind === 'owner')) {
      expect(Number(owner.version)).toBe(byOwner.get(owner.owner!));
    }
    const delivered = records
      .filter((r) => r.kind === 'delivery')
      .map((r) => JSON.parse(r.payload!) as { id: number; name: string });
    expect(delivered).toHaveLength(plants.length);
    const liveDeliveries = delivered.filter(({ name }) => name.startsWith('live '));
    expect(new Set(liveDeliveries.map(({ id }) => id))).toEqual(live);
  });
});
