// DATABASE_DIRECT_URL's own failures are said as its own: an unreachable direct database at start names that setting
// (not DATABASE_URL), and losing its connection while running (the change feed's) is logged at warn, then its return.
import { createTestDatabase, type TestDatabase, waitFor } from '@plant-store/test-kit';
import { startReadOnlyProxy } from '@plant-store/test-kit/read-only-proxy';
import { sparePort } from '@plant-store/test-kit/spare-port';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { failureReason } from '../../../src/cli/failure-reason.js';
import type { RunLog } from '../../../src/failure-run.js';
import { openStore } from '../../../src/store/open-store.js';

const database: TestDatabase = createTestDatabase('postgres');

beforeAll(async () => {
  const store = await openStore(database.url);
  await store.migrate();
  await store.close();
});
afterAll(() => database.drop());

it('names DATABASE_DIRECT_URL when only the direct database is unreachable at start', async () => {
  const store = await openStore(database.url, { directUrl: `postgres://postgres@127.0.0.1:${await sparePort()}/test` });
  try {
    const error = await store.migrate().then(
      () => undefined,
      (failed: Error) => failed,
    );
    expect(error).toBeInstanceOf(Error);
    const reason = failureReason(error!);
    expect(reason).toMatch(/^the PostgreSQL database of DATABASE_DIRECT_URL is unreachable: .*ECONNREFUSED/);
    expect(reason).toContain('are the host and port in DATABASE_DIRECT_URL right?');
    expect(reason).not.toMatch(/DATABASE_URL\b/);
  } finally {
    await store.close();
  }
});

it('logs the loss of the direct connection at warn, and its return', async () => {
  const proxy = await startReadOnlyProxy();
  const lines: { level: string; message: string }[] = [];
  const log: RunLog = {
    warn: (_details, message) => lines.push({ level: 'warn', message }),
    info: (_details, message) => lines.push({ level: 'info', message }),
  };
  const store = await openStore(database.url, { directUrl: proxy.url(), log });
  try {
    // The first token lookup starts the change feed, on the direct connection.
    await store.tokens.findByHash(Buffer.alloc(32));
    await waitFor('the change feed to connect through the proxy', () => proxy.sessions > 0);
    proxy.dropConnections();
    await waitFor('a warning of the lost connection', () => lines.some((line) => line.level === 'warn'));
    expect(lines[0]).toEqual({
      level: 'warn',
      message: expect.stringContaining('the change feed lost its PostgreSQL session connection (DATABASE_DIRECT_URL)'),
    });
    await waitFor('the feed back, said at info', () => lines.some((line) => line.level === 'info'));
    expect(lines.at(-1)!.message).toMatch(/recovered after \d+ failures/);
  } finally {
    await store.close();
    await proxy.close();
  }
});
