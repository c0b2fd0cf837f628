// The barrier's connection: statements asked for together share the pool's one connection at once (pipelined, none
// queued in the pool), the connection goes back to the pool when none is unanswered, and one that broke is replaced.
import type { Socket } from 'node:net';
import { POSTGRES_URL, waitFor } from '@plant-store/test-kit';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { pipelinedConnection } from '../../../src/store/postgres/pipelined-connection.js';

const pool = new pg.Pool({ connectionString: POSTGRES_URL, max: 1, pipeline: true });
pool.on('error', () => {});
const query = pipelinedConnection(pool);
const backend = 'SELECT pg_backend_pid() AS pid';
afterAll(() => pool.end());

describe('pipelinedConnection', () => {
  it('writes a statement while the one before it is unanswered, on the same connection', async () => {
    let client: pg.PoolClient | undefined;
    pool.once('acquire', (acquired) => (client = acquired));
    const holder = new pg.Client({ connectionString: POSTGRES_URL });
    await holder.connect();
    try {
      await holder.query('SELECT pg_advisory_lock(7261)');
      const waiting = query<{ pid: number }>(`SELECT pg_advisory_xact_lock(7261), pg_backend_pid() AS pid`, []);
      await waitFor('the first statement to wait for the lock', async () => {
        const { rowCount } = await holder.query(
          "SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%pg_advisory_xact_lock(7261)%'",
        );
        return rowCount === 1;
      });
      const socket = (client as unknown as { connection: { stream: Socket } }).connection.stream;
      const written = socket.bytesWritten;
      const behind = query<{ pid: number }>(backend, []);
      await new Promise((resolve) => setImmediate(resolve));
      // Without pipelining, the second would wait, unwritten, until the first is answered.
      expect(socket.bytesWritten).toBeGreaterThan(written);
      expect(pool.waitingCount).toBe(0);
      await holder.query('SELECT pg_advisory_unlock(7261)');
      const [first, second] = await Promise.all([waiting, behind]);
      expect(second.rows[0]!.pid).toBe(first.rows[0]!.pid);
      expect(pool.totalCount).toBe(1);
      expect(pool.idleCount).toBe(1);
    } finally {
      await holder.end();
    }
  });

  it('goes on with a new connection once its connection broke', async () => {
    const { rows } = await query<{ pid: number }>(backend, []);
    const killer = new pg.Client({ connectionString: POSTGRES_URL });
    await killer.connect();
    try {
      // The expectation is attached before the kill: the query may reject while the kill's own answer is awaited.
      const refused = expect(query(`SELECT pg_sleep(5)`, [])).rejects.toThrow();
      await new Promise((resolve) => setTimeout(resolve, 50));
      await killer.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
      await refused;
    } finally {
      await killer.end();
    }
    const next = await query<{ pid: number }>(backend, []);
    expect(next.rows[0]!.pid).not.toBe(rows[0]!.pid);
  });
});
