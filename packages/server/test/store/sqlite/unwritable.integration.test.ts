// A SQLite database that cannot take writes (another process holds the write lock) answers 503 in the Error shape,
// keeps serving reads, and takes writes again as soon as the lock is gone.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call } from '@plant-store/test-kit/contract-call';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { issueToken } from '../../../src/auth/tokens.js';
import { loadConfig } from '../../../src/config.js';
import { openStore } from '../../../src/store/open-store.js';
import type { Store } from '../../../src/store/store.js';

const dir = mkdtempSync(join(tmpdir(), 'plant-store-locked-'));
const path = join(dir, 'locked.db');
let store: Store;
let app: Awaited<ReturnType<typeof buildApp>>;
let token: string;

beforeAll(async () => {
  const config = loadConfig({ DATABASE_URL: `sqlite:${path}`, LOG_LEVEL: 'silent' });
  store = await openStore(config.databaseUrl);
  await store.migrate();
  token = (await issueToken(store.tokens, { subject: 'locked' })).token;
  app = await buildApp({ config, store });
});
afterAll(async () => {
  await app.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const create = (id: number) =>
  call(app, { method: 'POST', url: '/plants', path: '/plants', token, body: { id, name: `p${id}` } });

it('answers 503 while another process holds the write lock, then recovers', async () => {
  expect((await create(1)).status).toBe(200);
  const other = new Database(path);
  other.exec('BEGIN EXCLUSIVE');
  try {
    const refused = await create(2);
    expect(refused.status).toBe(503);
    expect(refused.json()).toEqual({ error: 503, message: 'the database is unavailable; retry shortly' });
    const read = await call(app, { method: 'GET', url: '/plants', path: '/plants', token });
    expect(read.status).toBe(200);
  } finally {
    other.exec('ROLLBACK');
    other.close();
  }
  expect((await create(2)).status).toBe(200);
  const listed = await call(app, { method: 'GET', url: '/plants', path: '/plants', token });
  expect(listed.json()).toEqual([{ name: 'p1' }, { name: 'p2' }]);
});
