// The PostgreSQL store: a connection pool, exact BIGINT ids (sent and read as text, never as a rounding number),
// migrations under an advisory lock so instances starting together apply them once, and 503s while it is down.
import pg from 'pg';
import { StoreUnavailableError } from '../errors.js';
import { postgresMigrations } from './postgres-migrations.js';
import type { PlantPage, Store } from './store.js';
import { type TokenRow, toTokenRecord } from './token-row.js';

// Any 64-bit key; the lock only serialises this service's migrations.
const MIGRATION_LOCK = 7_164_217_400_118_001;

export interface PostgresOptions {
  /** Connection string; a `schema` query parameter selects (and creates) a schema to work in. */
  url: string;
  poolSize: number;
  /**
   * Deadline of every database call in ms: waiting for a pooled connection, and each statement (server side, plus a
   * client-side timeout for a server that stops answering). Keep it below REQUEST_TIMEOUT_MS.
   */
  timeoutMs?: number;
}

/** The deadline of a database call when none is given. */
const DEFAULT_POSTGRES_TIMEOUT_MS = 5_000;

// Errors that mean the database cannot be reached right now, as opposed to a bug in a query.
function isUnavailable(error: unknown): boolean {
  const { code, message } = error as { code?: string; message?: string };
  if (
    code &&
    // 08: connection, 57P0x: shutdown, 53: resources, 57014: statement timeout, 55P03: lock timeout.
    (/^(08|57P0|53|57014|55P03)/.test(code) ||
      ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EPIPE'].includes(code))
  ) {
    return true;
  }
  return /Connection terminated|connection timeout|Client has encountered a connection error|timeout exceeded when trying to connect|Query read timeout/i.test(
    message ?? '',
  );
}

function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

export function openPostgresStore({ url, poolSize, timeoutMs = DEFAULT_POSTGRES_TIMEOUT_MS }: PostgresOptions): Store {
  const parsed = new URL(url);
  const schema = parsed.searchParams.get('schema');
  parsed.searchParams.delete('schema');
  if (schema !== null && !/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(schema)) {
    throw new TypeError(`the schema in DATABASE_URL must be a plain SQL identifier, got "${schema}"`);
  }
  const pool = new pg.Pool({
    connectionString: parsed.toString(),
    max: poolSize,
    connectionTimeoutMillis: timeoutMs,
    idleTimeoutMillis: 30_000,
    statement_timeout: timeoutMs,
    lock_timeout: timeoutMs,
    query_timeout: timeoutMs + 500,
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  // An idle client losing its connection must not crash the process; the next query reports it.
  pool.on('error', () => {});

  async function query<Row extends pg.QueryResultRow>(text: string, values: unknown[] = []) {
    try {
      return await pool.query<Row>(text, values);
    } catch (error) {
      if (isUnavailable(error))
        throw new StoreUnavailableError('the PostgreSQL database is unreachable', { cause: error });
      throw error;
    }
  }

  return {
    kind: 'postgres',
    poolStats: () => ({ max: poolSize, total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    plants: {
      async create(owner, plant) {
        const result = await query(
          'INSERT INTO plants (owner, id, name, tag) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING',
          [owner, plant.id.toString(), plant.name, plant.tag ?? null],
        );
        return result.rowCount === 1;
      },
      async list(owner, { limit, after }): Promise<PlantPage> {
        // One query: the page as JSON built by PostgreSQL, its last id, and whether one more row follows.
        const result = await query<{ json: string; last_id: string | null; has_more: boolean }>(
          `SELECT coalesce(jsonb_agg(jsonb_strip_nulls(jsonb_build_object('name', name, 'tag', tag)) ORDER BY id)
                    FILTER (WHERE n <= $3), '[]'::jsonb)::text AS json,
                  (max(id) FILTER (WHERE n <= $3))::text AS last_id,
                  count(*) > $3 AS has_more
           FROM (SELECT id, name, tag, row_number() OVER (ORDER BY id) AS n FROM plants
                 WHERE owner = $1 AND ($2::bigint IS NULL OR id > $2::bigint)
                 ORDER BY id LIMIT $3 + 1) AS page`,
          [owner, after === undefined ? null : after.toString(), limit],
        );
        const row = result.rows[0]!;
        return {
          json: row.json,
          lastId: row.last_id === null ? undefined : BigInt(row.last_id),
          hasMore: row.has_more,
        };
      },
      async delete(owner, id) {
        const result = await query('DELETE FROM plants WHERE owner = $1 AND id = $2', [owner, id.toString()]);
        return result.rowCount === 1;
      },
    },
    tokens: {
      async insert(record, secretHash) {
        await query(
          `INSERT INTO tokens (id, subject, scopes, secret_hash, created_at, expires_at, revoked_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7)`,
          [
            record.id,
            record.subject,
            record.scopes.join(','),
            secretHash,
            record.createdAt,
            record.expiresAt,
            record.revokedAt,
          ],
        );
      },
      async findByHash(secretHash) {
        const result = await query<TokenRow>('SELECT * FROM tokens WHERE secret_hash = $1', [secretHash]);
        const row = result.rows[0];
        return row ? { ...toTokenRecord(row), secretHash: row.secret_hash } : undefined;
      },
      async list() {
        const result = await query<TokenRow>('SELECT * FROM tokens ORDER BY created_at, id');
        return result.rows.map(toTokenRecord);
      },
      async revoke(id, at) {
        const result = await query('UPDATE tokens SET revoked_at = COALESCE(revoked_at, $2) WHERE id = $1', [id, at]);
        return result.rowCount === 1;
      },
    },
    async migrate() {
      let client: pg.PoolClient;
      try {
        client = await pool.connect();
      } catch (error) {
        throw new StoreUnavailableError('the PostgreSQL database is unreachable', { cause: error });
      }
      const applied: number[] = [];
      try {
        await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
        if (schema) await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`);
        await client.query(
          'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())',
        );
        const done = new Set(
          (await client.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map((r) => r.version),
        );
        for (const migration of postgresMigrations) {
          if (done.has(migration.version)) continue;
          await client.query('BEGIN');
          try {
            await client.query(migration.sql);
            await client.query('INSERT INTO schema_migrations (version) VALUES ($1)', [migration.version]);
            await client.query('COMMIT');
          } catch (error) {
            await client.query('ROLLBACK');
            throw error;
          }
          applied.push(migration.version);
        }
      } finally {
        await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => {});
        client.release();
      }
      return applied;
    },
    async ping() {
      await query('SELECT 1');
    },
    async close() {
      await pool.end();
    },
  };
}
