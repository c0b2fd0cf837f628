// A commit PostgreSQL made on the primary alone: with synchronous replication, a COMMIT whose wait for the standby is
// cancelled (by the transaction's statement_timeout, or here by pg_cancel_backend, the standby never answering) still
// succeeds, with a warning. A failover may lose such a commit, so the store answers it as unavailable (503), never as
// created.
import { waitFor } from '@plant-store/test-kit';
import { startThrowawayPostgres, type ThrowawayPostgres } from '@plant-store/test-kit/throwaway-postgres';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openStore } from '../../../src/store/open-store.js';
import { type Store, StoreUnavailableError } from '../../../src/store/store.js';

let server: ThrowawayPostgres;
let store: Store;

beforeAll(async () => {
  server = await startThrowawayPostgres();
  store = await openStore(server.url, { timeoutMs: 20_000 });
  await store.migrate();
  // From now on every commit waits for a synchronous standby that does not exist.
  const admin = new pg.Client({ connectionString: server.url });
  await admin.connect();
  await admin.query("ALTER SYSTEM SET synchronous_standby_names = 'nobody'");
  await admin.query('SELECT pg_reload_conf()');
  await admin.end();
}, 120_000);
afterAll(async () => {
  await store?.close();
  await server?.stop();
});

it('answers a create whose commit the standby never confirmed as unavailable, though it committed locally', async () => {
  const direct = new pg.Client({ connectionString: server.url });
  await direct.connect();
  try {
    const create = store.plants.create('owner', { id: 1n, name: 'unconfirmed' });
    const outcome = create.then(
      () => 'created',
      (error: Error) => error,
    );
    await waitFor('the COMMIT to wait for the synchronous standby', async () => {
      const { rows } = await direct.query("SELECT pid FROM pg_stat_activity WHERE wait_event = 'SyncRep'");
      for (const { pid } of rows) await direct.query('SELECT pg_cancel_backend($1)', [pid]);
      return rows.length > 0;
    });
    const answered = await outcome;
    expect(answered).toBeInstanceOf(StoreUnavailableError);
    expect((answered as Error).message).toBe('the PostgreSQL standby did not confirm the commit in time');
    const { rows } = await direct.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM plants WHERE name = 'unconfirmed'",
    );
    expect(rows[0]!.n).toBe(1);
  } finally {
    await direct.end();
  }
});
