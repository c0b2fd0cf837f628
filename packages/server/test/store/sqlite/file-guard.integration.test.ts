// Deleting (or replacing) the SQLite file under a running service is noticed: readiness fails with
// 503 instead of saying ok while every write goes to a file nobody will ever open again.

import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { createTestDatabase } from '@plant-store/test-kit';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { loadConfig } from '../../../src/config.js';
import { openStore } from '../../../src/store/open-store.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function ready(kind: 'delete' | 'replace') {
  const database = createTestDatabase('sqlite');
  const config = loadConfig({ DATABASE_URL: database.url, LOG_LEVEL: 'silent' });
  const store = await openStore(config.databaseUrl);
  await store.migrate();
  const app = await buildApp({ config, store });
  cleanups.push(async () => {
    await app.close();
    await store.close();
    await database.drop();
  });
  expect((await app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
  const path = database.url.slice('sqlite:'.length);
  if (kind === 'delete') {
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
  } else {
    renameSync(path, `${path}.old`);
    writeFileSync(path, '');
  }
  return app.inject({ method: 'GET', url: '/readyz' });
}

describe('readiness and the SQLite file', () => {
  it('fails once the file at the configured path is deleted', async () => {
    const answer = await ready('delete');
    expect(answer.statusCode).toBe(503);
    expect(answer.json()).toEqual({ error: 503, message: expect.stringContaining('sqlite') });
  });
  it('fails once the path names another file', async () => {
    expect((await ready('replace')).statusCode).toBe(503);
  });
});
