// The PostgreSQL store: a connection pool, exact BIGINT ids (sent and read as text, never as a rounding number),
// migrations under an advisory lock so instances starting together apply them once, and 503s while it is down.
// Reads are answered from byte-bounded caches: pages once the read barrier (read-barrier.ts) found their owner's
// version unchanged, token records while the change feed is live; creates are group-committed (create-batch.ts);
// every write NOTIFYs the other instances in its own transaction.
import { randomBytes } from 'node:crypto';
import { unchanged } from '@plant-store/core';
import pg from 'pg';
import type { RunLog } from '../../failure-run.js';
import { FailureRun } from '../../failure-run.js';
import { ownBytes } from '../cache/own-bytes.js';
import { DEFAULT_PAGE_CACHE_BYTES, PageCache } from '../cache/page-cache.js';
import type { WriteEffect } from '../cache/write-effect.js';
import {
  IDEMPOTENCY_TTL_MS,
  type KeptAnswer,
  type PlantPage,
  type Store,
  StoreUnavailableError,
  type TokenRecord,
} from '../store.js';
import { type TokenRow, toTokenRecord } from '../token-row.js';
import { ChangeFeed, channelFor, encodeChange, notifyPrefix } from './change-feed.js';
import { CreateBatch } from './create-batch.js';
import { TRIM_OLDEST_KEYS } from './idempotency-bound.js';
import { qualifyTables, quoteIdent } from './identifier.js';
import { postgresMigrations } from './migrations.js';
import { parsePostgresUrl } from './multi-host-url.js';
import { createPostgresOutbox } from './outbox.js';
import { pipelinedConnection } from './pipelined-connection.js';
import { DEFAULT_POOL_SIZE } from './pool-size.js';
import { ReadBarrier } from './read-barrier.js';
import { committedUnreplicated, sessionClient, WrongServerError } from './session-target.js';

// Any 64-bit key; the lock only serialises this service's migrations.
const MIGRATION_LOCK = 7_164_217_400_118_001;

export interface PostgresOptions {
  /**
   * Connection string, a PostgreSQL server or a transaction pooler (PgBouncer) in front of one; a `schema` query
   * parameter selects (and creates) a schema to work in. Several hosts (`postgres://pg1:5432,pg2:5432/db`) are tried
   * for the one `target_session_attrs` asks for (read-write unless said; multi-host-url.ts).
   */
  url: string;
  /**
   * The same database reached directly (DATABASE_DIRECT_URL), for what needs a session of its own: migrations and the
   * change feed's LISTEN. Without it they go through `url`. The `schema` of `url` applies to it.
   */
  directUrl?: string | undefined;
  /** Connections in the pool (DATABASE_POOL_SIZE). */
  poolSize?: number;
  /**
   * Deadline of every database call in ms: waiting for a pooled connection, and each statement (client side; server
   * side too in the transactions the store opens, by SET LOCAL, since a pooler refuses it as a startup parameter).
   * Keep it below REQUEST_TIMEOUT_MS.
   */
  timeoutMs?: number;
  /** Most bytes of cached pages (PAGE_CACHE_BYTES). */
  pageCacheBytes?: number;
  /** Where the loss of the change feed's session connection is said (warn), and its return (info). */
  log?: RunLog;
}

/** Most bytes of cached token records; only tokens that exist are cached, so this holds thousands of principals. */
const TOKEN_CACHE_BYTES = 4 * 1024 * 1024;
type CachedToken = TokenRecord & { secretHash: Buffer };
const tokenBytes = (token: CachedToken) => 2 * (token.id.length + token.subject.length) + 64 + 256;

// One page as JSON built by PostgreSQL, its last id, and whether one more row follows: one statement. The JSON is
// written as JSON.stringify writes it (no spaces, `name` before `tag`, a missing tag left out; to_json escapes a
// text as it does): the same bytes as the other engines' pages, where jsonb's text had a space after every colon and
// comma and `tag` first (4,484 bytes against 4,085 for 100 plants).
const LIST_PLANTS = `SELECT coalesce('[' || string_agg('{"name":' || to_json(name)::text
             || CASE WHEN tag IS NULL THEN '' ELSE ',"tag":' || to_json(tag)::text END || '}', ',' ORDER BY id)
           FILTER (WHERE n <= $3) || ']', '[]') AS json,
         (max(id) FILTER (WHERE n <= $3))::text AS last_id,
         count(*) > $3 AS has_more,
         (SELECT version::text FROM owner_versions WHERE owner = $1) AS version
  FROM (SELECT id, name, tag, row_number() OVER (ORDER BY id) AS n FROM plants
        WHERE owner = $1 AND ($2::bigint IS NULL OR id > $2::bigint)
        ORDER BY id LIMIT $3 + 1) AS page`;

// The read barrier's check: the current versions of a batch of owners (an owner with no row has version '0').
const READ_VERSIONS = 'SELECT owner, version::text AS version FROM owner_versions WHERE owner = ANY($1)';

// The delete moves the owner's version in its own statement (so its transaction), as every create does.
const DELETE_PLANT = `WITH deleted AS (DELETE FROM plants WHERE owner = $1 AND id = $2 RETURNING owner),
  bumped AS (INSERT INTO owner_versions AS v (owner, version) SELECT owner, 1 FROM deleted
             ON CONFLICT (owner) DO UPDATE SET version = v.version + 1 RETURNING version)
  SELECT pg_notify($3, $4::text || 'p:' || owner), (SELECT version::text FROM bumped) AS version FROM deleted`;

const FIND_KEY = 'SELECT fingerprint, status, body FROM idempotency_keys WHERE owner = $1 AND key = $2';

// A 400 kept with its key unless the key holds a live answer; the owner's count of keys grows unless it reused one,
// and its oldest keys beyond the bound go in the same statement (idempotency-bound.ts).
const REMEMBER_KEY = `WITH claimed AS (
    INSERT INTO idempotency_keys AS k (owner, key, fingerprint, status, body, created_at)
    VALUES ($1, $2, $3, $4, $5, $6)
    ON CONFLICT (owner, key) DO UPDATE SET fingerprint = excluded.fingerprint, status = excluded.status,
      body = excluded.body, created_at = excluded.created_at
      WHERE k.created_at <= $7
    RETURNING owner, key, (xmax <> 0) AS reused
  ), ${TRIM_OLDEST_KEYS}, counted AS (
    INSERT INTO owner_versions AS v (owner, version, idempotency_keys)
    SELECT owner, 0, CASE WHEN reused THEN 0 ELSE 1 END - (SELECT count(*) FROM trimmed) FROM claimed
    WHERE NOT reused OR EXISTS (SELECT 1 FROM trimmed)
    ON CONFLICT (owner) DO UPDATE SET idempotency_keys = v.idempotency_keys + excluded.idempotency_keys RETURNING 1
  )
  SELECT (SELECT count(*) FROM counted) AS counted FROM claimed`;

const SWEEP_EXPIRED = `WITH expired AS (
    DELETE FROM idempotency_keys WHERE (owner, key) IN
      (SELECT owner, key FROM idempotency_keys WHERE created_at < $1 ORDER BY created_at LIMIT $2)
    RETURNING owner
  ), counts AS (SELECT owner, count(*) AS n FROM expired GROUP BY owner),
  updated AS (
    UPDATE owner_versions v SET idempotency_keys = greatest(0, v.idempotency_keys - counts.n)
    FROM counts WHERE v.owner = counts.owner RETURNING 1
  )
  SELECT (SELECT count(*) FROM expired)::int AS deleted, (SELECT count(*) FROM updated) AS updated`;

const CROWDED_OWNERS = `SELECT owner, idempotency_keys AS keys FROM owner_versions WHERE idempotency_keys > $1
  ORDER BY idempotency_keys DESC LIMIT 16`;

const TRIM_OWNER = `WITH gone AS (
    DELETE FROM idempotency_keys WHERE (owner, key) IN
      (SELECT owner, key FROM idempotency_keys WHERE owner = $1 ORDER BY created_at LIMIT $2)
    RETURNING 1
  ), updated AS (
    UPDATE owner_versions SET idempotency_keys = greatest(0, idempotency_keys - (SELECT count(*) FROM gone))
    WHERE owner = $1 RETURNING 1
  )
  SELECT (SELECT count(*) FROM gone)::int AS deleted, (SELECT count(*) FROM updated) AS updated`;

const REVOKE_TOKEN = `WITH revoked AS (UPDATE tokens SET revoked_at = COALESCE(revoked_at, $2) WHERE id = $1 RETURNING id)
  SELECT pg_notify($3, $4) FROM revoked`;

/**
 * The deadline of each migration statement, the migration lock's wait included: migrations run before the service
 * serves, and a DDL commit on a busy server may take longer than a request may (instances starting together wait
 * for the one migrating).
 */
const MIGRATION_TIMEOUT_MS = 60_000;

/** The deadline of a database call when none is given. */
const DEFAULT_POSTGRES_TIMEOUT_MS = 5_000;

// Errors that mean the database cannot be reached right now, as opposed to a bug in a query.
function isUnavailable(error: unknown): boolean {
  const { code, message } = error as { code?: string; message?: string };
  if (
    code &&
    // 08: connection, 57P0x: shutdown, 53: resources, 57014: statement timeout, 55P03: lock timeout, 25006: a
    // read-only transaction (the server is a standby now, or read-only: a failover under way).
    (/^(08|57P0|53|57014|55P03|25006)/.test(code) ||
      ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EPIPE'].includes(code))
  ) {
    return true;
  }
  return /Connection terminated|terminating connection|connection timeout|Client has encountered a connection error|timeout exceeded when trying to connect|Query read timeout/i.test(
    message ?? '',
  );
}

/**
 * The error a call that could not reach the database throws: "refused" when the server (or a pooler in front of it)
 * answered with an error of its own, such as a startup parameter it does not accept, "unreachable" otherwise.
 */
function unavailable(error: unknown, setting = 'DATABASE_URL'): StoreUnavailableError {
  const { code, severity } = error as { code?: unknown; severity?: unknown };
  const of = setting === 'DATABASE_URL' ? '' : ` of ${setting}`;
  const what =
    error instanceof WrongServerError || code === '25006'
      ? `only a standby (read-only) PostgreSQL server${of} is reachable`
      : typeof severity === 'string'
        ? `the PostgreSQL server${of} (or its pooler) refused`
        : `the PostgreSQL database${of} is unreachable`;
  return new StoreUnavailableError(what, { cause: error, setting });
}

/** A commit made on the primary alone (its wait for the synchronous standby cancelled): answered 503, never 2xx. */
const notReplicated = () =>
  new StoreUnavailableError('the PostgreSQL standby did not confirm the commit in time', {
    cause: new Error('canceling wait for synchronous replication'),
  });

export function openPostgresStore({
  url,
  directUrl,
  poolSize = DEFAULT_POOL_SIZE,
  timeoutMs = DEFAULT_POSTGRES_TIMEOUT_MS,
  pageCacheBytes = DEFAULT_PAGE_CACHE_BYTES,
  log,
}: PostgresOptions): Store {
  const target = parsePostgresUrl(url);
  const { schema } = target;
  const direct = directUrl === undefined ? undefined : parsePostgresUrl(directUrl, 'DATABASE_DIRECT_URL');
  const connectionString = target.hosts[0]!.connectionString;
  const sessionString = (direct ?? target).hosts[0]!.connectionString;
  const sessionSetting = direct ? 'DATABASE_DIRECT_URL' : 'DATABASE_URL';
  if (schema !== null && !/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(schema)) {
    throw new TypeError(`the schema in DATABASE_URL must be a plain SQL identifier, got "${schema}"`);
  }
  // Nothing a transaction pooler refuses or loses between transactions: no startup parameters (timeouts are the
  // client's, and SET LOCAL in transactions), no search_path (tables are qualified by the schema), no named
  // statements (a pooler's next transaction may run on a server connection that never prepared them).
  // A connection reaching another server than the last one (a failover, a restart) forgets every cached page and
  // token: what the old server held and the new one lacks (a write lost with it) must not be answered.
  let server: string | undefined;
  const onServer = (reached: string) => {
    if (server !== undefined && reached !== server) forgetAll();
    server = reached;
  };
  const probeMs = Math.min(1_000, Math.max(1, Math.trunc(timeoutMs / 2)));
  const Client = sessionClient(target, { probeMs, onServer });
  const SessionClient = direct ? sessionClient(direct, { probeMs, onServer }) : Client;
  const pool = new pg.Pool({
    Client,
    connectionString,
    max: poolSize,
    connectionTimeoutMillis: timeoutMs,
    idleTimeoutMillis: 30_000,
    query_timeout: timeoutMs,
  });
  // An idle client losing its connection must not crash the process; the next query reports it.
  pool.on('error', () => {});
  const qualified = new Map<string, string>();
  const inSchema = (text: string) => {
    if (!schema) return text;
    let found = qualified.get(text);
    if (found === undefined) {
      found = qualifyTables(text, schema);
      qualified.set(text, found);
    }
    return found;
  };
  const deadlines = `SET LOCAL statement_timeout = ${Math.trunc(timeoutMs)}; SET LOCAL lock_timeout = ${Math.trunc(timeoutMs)}`;

  // As pool.query, and a commit the synchronous standby did not confirm is not acknowledged; a connection that
  // failed is closed rather than pooled again.
  async function query<Row extends pg.QueryResultRow>(text: string, values: unknown[] = []) {
    let client: pg.PoolClient;
    try {
      client = await pool.connect();
    } catch (error) {
      throw isUnavailable(error) ? unavailable(error) : error;
    }
    let failed: Error | undefined;
    try {
      const result = await client.query<Row>(inSchema(text), values);
      if (committedUnreplicated(client)) throw notReplicated();
      return result;
    } catch (error) {
      failed = error instanceof Error ? error : new Error(String(error));
      if (isUnavailable(error)) throw unavailable(error);
      throw error;
    } finally {
      client.release(failed);
    }
  }

  // Pages are answered once the read barrier found their owner's version unchanged, whatever the feed says; token
  // records only while the feed is live. A token read while the epoch moved may predate a revocation it was told
  // about, so it is answered but not cached.
  const channel = channelFor(schema);
  const pages = new PageCache(pageCacheBytes);
  const tokens = new PageCache<CachedToken>(TOKEN_CACHE_BYTES, tokenBytes);
  // The barrier's checks have a connection of their own: through the pool, a check waited behind creates and misses
  // holding every connection (group commit keeps one for a whole transaction), and every cached answer with it. They
  // are pipelined on it (read-barrier.ts sends one a turn, without waiting for the one before).
  const checks = new pg.Pool({
    Client,
    connectionString,
    max: 1,
    connectionTimeoutMillis: timeoutMs,
    idleTimeoutMillis: 30_000,
    query_timeout: timeoutMs,
    pipeline: true,
  });
  checks.on('error', () => {});
  const check = pipelinedConnection(checks);
  const barrier = new ReadBarrier(async (owners) => {
    try {
      const result = await check<{ owner: string; version: string }>(inSchema(READ_VERSIONS), [owners]);
      return new Map(result.rows.map((row) => [row.owner, row.version]));
    } catch (error) {
      throw isUnavailable(error) ? unavailable(error) : error;
    }
  });
  let epoch = 0;
  function forgetAll() {
    pages.clear();
    tokens.clear();
    epoch++;
  }
  const origin = randomBytes(6).toString('hex');
  const feedOutage = log
    ? new FailureRun(
        log,
        `the change feed lost its PostgreSQL session connection (${sessionSetting})`,
        60_000,
        'caches are checked against the database meanwhile, and it reconnects',
      )
    : undefined;
  const feed = new ChangeFeed({
    connectionString: sessionString,
    Client: SessionClient,
    onLost: (error) => feedOutage?.failed(error),
    onLive: () => feedOutage?.succeeded(),
    channel,
    origin,
    timeoutMs,
    onChange(change) {
      // Another instance's write to plants frees the owner's pages early (the barrier would refuse them anyway).
      if (change?.kind === 'plants') {
        pages.forget(change.owner);
      } else {
        tokens.clear();
        epoch++;
      }
    },
  });
  // The feed starts with the first read, so one-off commands (the CLI) never open it.
  let feedStarted = false;
  const feedLive = () => {
    if (!feedStarted) {
      feedStarted = true;
      void feed.start();
    }
    return feed.live;
  };
  /** The token record for a secret's hash while the caches are trusted and hold it. */
  const cachedToken = (secretHash: Buffer) => (feedLive() ? tokens.get('', secretHash.toString('latin1')) : undefined);
  // This instance's own writes forget only the pages they may alter, and move the others' version when no other write
  // came between (each created or deleted plant moves its owner's version by one).
  const changedLocally = (owner: string, effect: WriteEffect, ids: readonly bigint[], version: string) =>
    pages.afterWrite(owner, String(BigInt(version) - BigInt(ids.length)), version, effect, ids);

  // Creates group-committed with their webhook events (outbox.ts): one statement, one commit per batch.
  const outbox = createPostgresOutbox(query, async (work) => {
    let client: pg.PoolClient;
    try {
      client = await pool.connect();
    } catch (error) {
      throw unavailable(error);
    }
    const run = async <Row extends pg.QueryResultRow>(text: string, values: unknown[] = []) => {
      try {
        return await client.query<Row>(inSchema(text), values);
      } catch (error) {
        if (isUnavailable(error)) throw unavailable(error);
        throw error;
      }
    };
    let broken = false;
    try {
      // One round trip: the transaction and its server-side deadlines.
      await run(`BEGIN; ${deadlines}`);
      const result = await work(run);
      await run('COMMIT');
      if (committedUnreplicated(client)) throw notReplicated();
      return result;
    } catch (error) {
      // A connection found unavailable (on a standby, say) is closed, not pooled again: the next one dials afresh.
      broken =
        error instanceof StoreUnavailableError ||
        (await run('ROLLBACK').then(
          () => false,
          () => true,
        ));
      throw error;
    } finally {
      client.release(broken);
    }
  });
  const creates = new CreateBatch(
    (rows) => outbox.createBatchWithEvents(rows, channel, notifyPrefix(origin)),
    (owner, ids, version) => changedLocally(owner, 'create', ids, version),
  );

  return {
    kind: 'postgres',
    poolStats: () => ({ max: poolSize, total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    cacheStats: () => pages.stats(),
    feedStats: () => ({ live: feed.live, lagSeconds: feed.lagMs / 1000 }),
    plants: {
      async create(owner, plant) {
        return creates.create(owner, plant);
      },
      async createOnce(owner, plant, claim) {
        for (;;) {
          const outcome = await creates.createOnce(owner, plant, claim);
          if (typeof outcome === 'boolean') return outcome;
          if (outcome === 'raced') {
            await query('UPDATE idempotency_keys SET status = 409, body = $3 WHERE owner = $1 AND key = $2', [
              owner,
              claim.key,
              claim.conflict,
            ]);
            return unchanged(false);
          }
          const kept = await query<KeptAnswer>(FIND_KEY, [owner, claim.key]);
          // Gone when a sweep removed it between the two statements: claim it again.
          if (kept.rows[0]) return unchanged(kept.rows[0]);
        }
      },
      async list(owner, { limit, after }): Promise<PlantPage> {
        const key = `${limit}:${after ?? ''}`;
        // With nothing cached for the page, the query below reads the database itself: the barrier's round trip
        // would buy nothing (a first list, or an owner's pages freed by a write, pay one statement, not two).
        if (pages.has(owner, key)) {
          // A cached page as new as the database when the request asked (or newer: this instance's own later write).
          const current = await barrier.version(owner);
          const cached = pages.get(
            owner,
            key,
            (page) => page.version === current || BigInt(page.version) > BigInt(current),
          );
          if (cached) return cached;
        } else {
          pages.get(owner, key); // counted as the miss it is
        }
        const result = await query<{ json: string; last_id: string | null; has_more: boolean; version: string | null }>(
          LIST_PLANTS,
          [owner, after === undefined ? null : after.toString(), limit],
        );
        const row = result.rows[0]!;
        const page: PlantPage = {
          body: ownBytes(row.json),
          lastId: row.last_id === null ? undefined : BigInt(row.last_id),
          hasMore: row.has_more,
          version: row.version ?? '0',
        };
        pages.set(owner, key, page, after);
        return page;
      },
      async delete(owner, id) {
        const result = await query<{ version: string }>(DELETE_PLANT, [
          owner,
          id.toString(),
          channel,
          notifyPrefix(origin),
        ]);
        const version = result.rows[0]?.version;
        return version === undefined ? unchanged(false) : changedLocally(owner, 'delete', [id], version);
      },
    },
    tokens: {
      async insert(record, secretHash) {
        // Unknown hashes are never cached, so a new token needs no invalidation.
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
      cachedByHash: cachedToken,
      async findByHash(secretHash) {
        const cached = cachedToken(secretHash);
        if (cached) return cached;
        const key = secretHash.toString('latin1');
        const live = feed.live;
        const seen = epoch;
        const result = await query<TokenRow>('SELECT * FROM tokens WHERE secret_hash = $1', [secretHash]);
        const row = result.rows[0];
        if (!row) return undefined; // unknown hashes are not cached: random tokens must not grow the cache
        const record = Object.freeze({ ...toTokenRecord(row), secretHash: ownBytes(row.secret_hash) });
        if (live && feed.live && seen === epoch) tokens.set('', key, record);
        return record;
      },
      async list() {
        const result = await query<TokenRow>('SELECT * FROM tokens ORDER BY created_at, id');
        return result.rows.map(toTokenRecord);
      },
      async revoke(id, at) {
        const result = await query(REVOKE_TOKEN, [id, at, channel, encodeChange({ kind: 'tokens' }, origin)]);
        tokens.clear();
        epoch++;
        return result.rowCount === 1;
      },
    },
    webhooks: outbox.repository,
    idempotency: {
      async remember(owner, key, answer, now) {
        const values = [owner, key, answer.fingerprint, answer.status, answer.body, now, now - IDEMPOTENCY_TTL_MS];
        for (;;) {
          if ((await query(REMEMBER_KEY, values)).rowCount === 1) return undefined;
          const kept = await query<KeptAnswer>(FIND_KEY, [owner, key]);
          if (kept.rows[0]) return kept.rows[0];
        }
      },
      async sweep(before, maxPerOwner, limit) {
        const expired = await query<{ deleted: number }>(SWEEP_EXPIRED, [before, limit]);
        let deleted = expired.rows[0]?.deleted ?? 0;
        const crowded = await query<{ owner: string; keys: number }>(CROWDED_OWNERS, [maxPerOwner]);
        for (const { owner, keys } of crowded.rows) {
          const excess = Math.min(keys - maxPerOwner, limit - deleted);
          if (excess <= 0) break;
          deleted += (await query<{ deleted: number }>(TRIM_OWNER, [owner, excess])).rows[0]?.deleted ?? 0;
        }
        return deleted;
      },
    },
    async migrate() {
      // On a session of its own where DATABASE_DIRECT_URL gives one; through the pool (a pooler, say) otherwise.
      const session = direct
        ? new SessionClient({
            connectionString: sessionString,
            connectionTimeoutMillis: timeoutMs,
            query_timeout: MIGRATION_TIMEOUT_MS,
          })
        : undefined;
      let client: pg.ClientBase;
      try {
        if (session) await session.connect();
        client = session ?? (await pool.connect());
      } catch (error) {
        await session?.end().catch(() => {});
        throw unavailable(error, sessionSetting);
      }
      // Each step is a transaction holding the migration lock (transaction-scoped, so a pooler's shared server
      // connections never keep it, and instances starting together apply each migration once), with the schema as
      // its search_path (SET LOCAL: gone at commit).
      const searchPath = schema ? `; SET LOCAL search_path TO ${quoteIdent(schema)}` : '';
      const migrationDeadlines = `SET LOCAL statement_timeout = ${MIGRATION_TIMEOUT_MS}; SET LOCAL lock_timeout = ${MIGRATION_TIMEOUT_MS}`;
      // Every statement of a step under the migration deadline, the pool's client (query_timeout) included.
      // (pg reads a query's own query_timeout; its types do not list it.)
      const run = (text: string, values: unknown[] = []) =>
        client.query({ text, values, query_timeout: MIGRATION_TIMEOUT_MS } as pg.QueryConfig);
      let broken = false;
      const step = async <T>(work: () => Promise<T>): Promise<T> => {
        await run(`BEGIN; ${migrationDeadlines}${searchPath}`);
        try {
          await run('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
          const result = await work();
          await run('COMMIT');
          return result;
        } catch (error) {
          broken = await client.query('ROLLBACK').then(
            () => false,
            () => true,
          );
          throw error;
        }
      };
      const applied: number[] = [];
      try {
        await step(async () => {
          if (schema) await run(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`);
          await run(
            'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())',
          );
        });
        for (const migration of postgresMigrations) {
          const done = await step(async () => {
            const found = await run('SELECT 1 FROM schema_migrations WHERE version = $1', [migration.version]);
            if (found.rowCount) return false;
            await run(migration.sql);
            await run('INSERT INTO schema_migrations (version) VALUES ($1)', [migration.version]);
            return true;
          });
          if (done) applied.push(migration.version);
        }
      } finally {
        if (session) await session.end().catch(() => {});
        else (client as pg.PoolClient).release(broken);
      }
      return applied;
    },
    async ping() {
      await query('SELECT 1');
    },
    async close() {
      await feed.close();
      await Promise.all([pool.end(), checks.end()]);
    },
  };
}
