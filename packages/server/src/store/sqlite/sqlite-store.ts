// The embedded SQLite store (better-sqlite3): WAL, and an answered write survives a crash or power cut (every
// connection runs synchronous=FULL, except the store's own with group commit, which commits with NORMAL and syncs the
// log off the event loop before answering: see log-keeper.ts); ids are 64-bit integers bound and read as bigint.
// Writes are group-committed; pages and token lookups are cached until the database changes: this process's writes
// forget what they may alter, and data_version catches commits by other processes sharing the file (`serve
// --workers`, the CLI).
import { statSync } from 'node:fs';
import { type KeptAnswer, unchanged, type Written } from '@plant-store/core';
import Database from 'better-sqlite3';
import { PageCache } from '../cache/page-cache.js';
import type { PlantChange, WriteEffect } from '../cache/write-effect.js';
import type { PlantPage, Store, StoredPlant, TokenRecord } from '../store.js';
import { type TokenRow, toTokenRecord } from '../token-row.js';
import { CHANGES_KEPT, createChangeLog, logEntryOf, toPlantChange } from './change-log.js';
import { checkBeforeOpen, watchFile } from './file-guard.js';
import { prepareDatabaseFile } from './file-mode.js';
import { asStoreError, createGroupCommit } from './group-commit.js';
import { createSqliteIdempotency } from './idempotency.js';
import { keepLogOf } from './log-keeper.js';
import { sqliteMigrations } from './migrations.js';
import { createSqliteOutbox } from './outbox.js';
import { keepWalSmall } from './wal.js';
import { watchWalHeader } from './wal-header.js';

interface FeedRow {
  seq: bigint;
  /** null: the tokens' generation moved. */
  owner: string | null;
  version: bigint;
  /** The change that made the version, from the change log; null where the log does not hold it. */
  id: bigint | null;
  created: bigint | null;
}

/** A change this process's write made, with the owner's version it moved to (decimal): what move() returns. */
type Move = Omit<PlantChange, 'version'> & { version: string };

const isMove = (answer: Move | false | KeptAnswer): answer is Move => answer !== false && 'effect' in answer;

/**
 * How the store runs a write of an owner's plants: `work` answers move()'s Move when it changed them, and the write
 * answers Written<true> only through it (PageCache.afterWrite applies the Move once it committed).
 */
export type OwnWrite = <Other extends false | KeptAnswer>(
  owner: string,
  work: () => Move | Other,
) => Promise<Written<true> | Written<Other>>;

/** An owner another process wrote to: the version the feed moved it to, and the changes heard on the way. */
interface Behind {
  version: bigint;
  /**
   * The feed's changes of the owner since it was last caught up, in version order (another process's only: this
   * process's own are not heard, and leave gaps); null once one was not in the log, or more than the log keeps came.
   */
  changes: PlantChange[] | null;
}

// The page as JSON (UTF-8 bytes), the owner's version and whether more plants follow, read by one statement: one
// snapshot, so another process's commit cannot land between the page and its `hasMore`. `+@owner` and `+@limit` keep
// SQLite from compiling the statement again at every run (a bare parameter there may change the plan).
const pageSelect = (rows: string) => `SELECT body, lastId, version,
    EXISTS (SELECT 1 FROM plants WHERE owner = +@owner AND id > lastId) AS hasMore
  FROM (SELECT CAST(json_group_array(
      CASE WHEN tag IS NULL THEN json_object('name', name) ELSE json_object('name', name, 'tag', tag) END ORDER BY id
    ) AS BLOB) AS body, max(id) AS lastId, (SELECT version FROM owner_versions WHERE owner = @owner) AS version
    FROM (${rows}))`;

export interface SqliteOptions {
  /** Share one transaction (one fsync) among concurrent writes; off commits each write on its own. */
  groupCommit?: boolean;
  /** Most bytes of cached pages; clients choose limit and cursor freely, so the cache is bounded in bytes. */
  pageCacheBytes?: number;
  /** Hears the size of each group-commit batch (metrics). */
  onGroupCommit?: (size: number) => void;
  /** Create a new database even where one was lost (`plant-store migrate`); otherwise start-up refuses. */
  recreateLost?: boolean;
}

const BUSY_TIMEOUT_MS = 1000;
/** Most owners remembered as behind the change feed; beyond it, every cached page is forgotten instead. */
const MAX_BEHIND = 10_000;

/** A connection to `path` (its directory created if needed) with the settings every store connection runs on. */
export function openSqliteDatabase(path: string): Database.Database {
  if (path !== ':memory:') prepareDatabaseFile(path);
  const db = new Database(path);
  if (path !== ':memory:') db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  // Waiting blocks the event loop, so a write lock held elsewhere is waited for briefly, then answered with 503.
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  return db;
}

/**
 * Opens the database at `path` (created if missing, unless one was lost there: see file-guard.ts), or an
 * in-memory one for ':memory:'.
 */
export function openSqliteStore(path: string, options: SqliteOptions = {}): Store {
  if (path !== ':memory:') checkBeforeOpen(path, { recreate: options.recreateLost ?? false });
  const db = openSqliteDatabase(path);
  // The file that was opened, by device and inode: readiness fails once the path names another file or none.
  const watch = path === ':memory:' ? null : watchFile(path, statSync(path, { bigint: true }));
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)');

  // One worker thread checkpoints, never in a commit on the event loop (see wal.ts), and makes group-committed
  // batches durable with an fsync of the log, not inside the commit (log-keeper.ts).
  const keeper = path === ':memory:' ? undefined : keepLogOf(path);
  const wal = keeper && keepWalSmall(db, keeper);
  const logSync = options.groupCommit !== false ? keeper : undefined;
  if (logSync) db.pragma('synchronous = NORMAL');
  // This process's own moves of owner versions (`owner\0version`), uncommitted or committed and not yet answered: their
  // feed rows are not another process's commits (readFeed). One rolled back is dropped: another process may make it.
  let uncommitted: string[] = [];
  const ownMoves = new Set<string>();
  const committed = () => {
    for (const key of uncommitted) ownMoves.add(key);
    uncommitted = [];
  };
  const rolledBack = () => {
    uncommitted = [];
  };
  const write: <T>(work: () => T) => Promise<T> =
    options.groupCommit === false
      ? async (work) => {
          wal?.wrote();
          try {
            const value = work();
            committed();
            return value;
          } catch (error) {
            rolledBack();
            throw asStoreError(error);
          }
        }
      : createGroupCommit(
          db,
          undefined,
          (size, changed) => {
            committed();
            if (changed) wal?.wrote();
            options.onGroupCommit?.(size);
          },
          logSync?.sync,
          rolledBack,
        );

  // Statements touching tables that migrations create are prepared on first use.
  const prepared = new Map<string, Database.Statement>();
  const statement = (sql: string) => {
    let found = prepared.get(sql);
    if (!found) {
      found = db.prepare(sql);
      prepared.set(sql, found);
    }
    return found;
  };

  const outbox = createSqliteOutbox(db, write, statement);
  const idempotency = createSqliteIdempotency(db, write, statement);
  const changes = createChangeLog(statement);

  // Read caches. This connection's writes update what they may alter (afterWrite); other processes' commits are heard
  // when the wal-index header moved, from the change feed (migration 7: a trigger's row per move of an owner's version
  // or the tokens' generation), one statement where reading each version took several. The header is read once per
  // turn of the event loop for the requests that began in it (beginRequest), else once per request, and by every call
  // outside requests.
  const walHeader = path === ':memory:' ? undefined : watchWalHeader(path);
  let inRequest = false;
  let checked = false;
  let closing = false;
  let closed = false;
  const closeRequest = () => {
    closing = false;
    inRequest = false;
    checked = false;
  };
  /** The look of the turn's requests at the header, while it is still to come. */
  let look: Promise<void> | undefined;
  // In the turn's check phase (setImmediate), so after the poll phase has read every request that begins in the turn:
  // any commit acknowledged before one of them was sent is in the header by then. Its requests' calls then check
  // nothing more (checked), up to closeRequest, queued after it, or a request begun since, which needs a look of its own.
  // A look that fails (the feed could not be read) settles all the same, leaving nothing checked: each request's own
  // calls look again and meet the failure themselves, as they did before, and a request that reads no cache (a
  // health check, a 404) is not refused for it.
  const lookOnce = () =>
    new Promise<void>((resolve) => {
      setImmediate(() => {
        look = undefined;
        // Already checked, the check came after the last request that began (each begin clears checked): it stands.
        if (!closed) {
          try {
            fresh();
          } catch {
            // Nothing is checked (fresh sets checked only once the feed is read): the requests' calls look again.
          }
        }
        resolve();
      });
    });
  const beginRequest = () => {
    logSync?.poll();
    inRequest = true;
    checked = false;
    // Queued before closeRequest, so it runs while the turn's requests are still in it.
    if (walHeader) look ??= lookOnce();
    if (!closing) {
      closing = true;
      setImmediate(closeRequest);
    }
    return look;
  };
  const pages = new PageCache(options.pageCacheBytes);
  const tokensByHash = new Map<string, TokenRecord & { secretHash: Buffer }>();
  /** The last row of the change feed read; undefined until the first look, which starts at the feed's end. */
  let feedSeq: bigint | undefined;
  /** Owners with cached pages that the feed has since moved on, and what it said of them; bounded (MAX_BEHIND). */
  const behind = new Map<string, Behind>();
  const heard = (owner: string, version: bigint, change: PlantChange | null) => {
    const entry = behind.get(owner);
    if (!entry) {
      behind.set(owner, { version, changes: change ? [change] : null });
      return;
    }
    if (version > entry.version) entry.version = version;
    if (!change || !entry.changes || entry.changes.length >= CHANGES_KEPT) entry.changes = null;
    else entry.changes.push(change);
  };
  const forgetAll = () => {
    pages.clear();
    tokensByHash.clear();
    behind.clear();
  };
  const readFeed = () => {
    if (feedSeq === undefined) {
      feedSeq = statement('SELECT coalesce(max(seq), 0) FROM change_feed').pluck().safeIntegers(true).get() as bigint;
      return;
    }
    // Each row with the change that made its version where the change log still holds it (the log keeps an owner's
    // last CHANGES_KEPT, in slots by version): the owner's next list replays it from memory, with no statement.
    const rows = statement(
      `SELECT f.seq, f.owner, f.version, c.id, c.created FROM change_feed f
       LEFT JOIN plant_changes c ON ${logEntryOf('f.owner', 'f.version')}
       WHERE f.seq > ? ORDER BY f.seq`,
    )
      .safeIntegers(true)
      .all(feedSeq) as FeedRow[];
    if (rows.length === 0) return;
    // Rows are numbered without gaps (each a rowid one past the last); a first one further on means the feed was
    // trimmed past this process's place in it: what it missed is unknown.
    if (rows[0]!.seq !== feedSeq + 1n) forgetAll();
    else {
      for (const { owner, version, id, created } of rows) {
        if (owner === null) tokensByHash.clear();
        else if (!ownMoves.has(ownMove(owner, version)) && pages.oldestVersion(owner) !== undefined) {
          heard(owner, version, id === null || created === null ? null : toPlantChange({ version, id, created }));
        }
      }
      if (behind.size > MAX_BEHIND) forgetAll();
    }
    feedSeq = rows.at(-1)!.seq;
  };
  const fresh = () => {
    // An in-memory database has no other connection.
    if (checked || !walHeader) return;
    if (!walHeader.unchanged()) {
      try {
        readFeed();
      } catch (error) {
        // The header moved but what moved it was not heard: the next look must read the feed again.
        walHeader.forget();
        throw error;
      }
    }
    checked = inRequest;
  };
  /** The token record for a secret's hash when the cache holds it and it is current. */
  const cachedToken = (secretHash: Buffer) => {
    fresh();
    return tokensByHash.get(secretHash.toString('latin1'));
  };

  const ownMove = (owner: string, version: string | bigint) => `${owner}\u0000${version}`;
  /** The move of the write running now (writes run one at a time, synchronously), even one whose work then threw. */
  let lastMove: Move | undefined;
  /**
   * Inside a write, the one call that names its effect: moves the owner's version, logs the change, and notes the
   * version as this process's own. A changing write answers its Move, which ownWrite applies to the owner's pages.
   */
  const move = (owner: string, effect: WriteEffect, id: bigint): Move => {
    const version = idempotency.bump(owner, true, 0);
    changes.record(owner, version, effect, id);
    uncommitted.push(ownMove(owner, version));
    lastMove = { effect, id, version };
    return lastMove;
  };
  // A write refused after its move may have committed (a failed log sync): the owner is marked behind.
  const ownWrite: OwnWrite = async (owner, work) => {
    let made: Move | undefined;
    let refused = true;
    try {
      const answer = await write(() => {
        const mark = uncommitted.length;
        lastMove = undefined;
        try {
          return work();
        } catch (error) {
          uncommitted.length = mark;
          throw error;
        } finally {
          made = lastMove;
        }
      });
      refused = false;
      if (!isMove(answer)) return unchanged(answer);
      const { effect, id, version } = answer;
      const written = pages.afterWrite(owner, before(owner, version), version, effect, [id]);
      // Wakes this process's delivery worker when the write queued webhook events (a create's).
      outbox.committed();
      return written;
    } finally {
      if (made) {
        ownMoves.delete(ownMove(owner, made.version));
        if (refused) {
          heard(owner, BigInt(made.version), null);
          if (behind.size > MAX_BEHIND) forgetAll();
        }
      }
    }
  };
  // The plant, its webhook events and the owner's new version, in one savepoint of the write's transaction; its Move
  // when the plant was new.
  const insertWithEvent = (owner: string, plant: StoredPlant): Move | false => {
    const insert = statement(
      'INSERT INTO plants (owner, id, name, tag) VALUES (?, ?, ?, ?) ON CONFLICT (owner, id) DO NOTHING',
    );
    return outbox.createWithEvent(
      owner,
      plant,
      () => insert.run(owner, plant.id, plant.name, plant.tag ?? null).changes === 1 && move(owner, 'create', plant.id),
    );
  };
  /**
   * Brings the owner's cached pages up to `to`, a committed version of the owner's: from the changes the feed brought
   * when they run without a gap from the pages' oldest version to `to` (PageCache.replay), else from the change log
   * (one statement: a gap is this process's own write, or a change the feed did not carry).
   */
  const catchUp = (owner: string, to: bigint) => {
    const entry = behind.get(owner);
    if (entry && entry.version <= to) behind.delete(owner);
    const oldest = pages.oldestVersion(owner);
    if (oldest === undefined || oldest >= to) return;
    const known = entry?.changes;
    const first = known ? known.findIndex((change) => change.version === oldest + 1n) : -1;
    const last = first < 0 ? -1 : first + Number(to - oldest) - 1;
    if (known && first >= 0 && known[last]?.version === to) {
      // Versions are consecutive, so the run from first to last is gapless exactly when its ends are `to - oldest`
      // versions apart over as many entries.
      pages.replay(owner, known.slice(first, last + 1), to);
      return;
    }
    changes.catchUp(pages, owner, to);
  };
  /**
   * The version before a write that moved the owner's to `version` (each write moves it by one), with the owner's
   * pages brought up to it first when one is older: another process may have written to the owner since they were
   * cached (the catch-up may take them past it, through this write and later ones: afterWrite then keeps them).
   */
  const before = (owner: string, version: string) => {
    const previous = BigInt(version) - 1n;
    catchUp(owner, previous);
    return String(previous);
  };

  return {
    cacheStats: () => pages.stats(),
    beginRequest,
    kind: 'sqlite',
    plants: {
      create(owner, plant) {
        return ownWrite(owner, () => insertWithEvent(owner, plant));
      },
      createOnce(owner, plant, claim) {
        return ownWrite(owner, () => idempotency.createOnce(owner, claim, () => insertWithEvent(owner, plant)));
      },
      async list(owner, { limit, after }): Promise<PlantPage> {
        fresh();
        const key = `${limit}:${after ?? ''}`;
        const entry = behind.get(owner);
        if (entry) catchUp(owner, entry.version);
        const cached = pages.get(owner, key);
        if (cached) return cached;
        const rows =
          after === undefined
            ? 'SELECT id, name, tag FROM plants WHERE owner = +@owner ORDER BY id LIMIT +@limit'
            : 'SELECT id, name, tag FROM plants WHERE owner = +@owner AND id > @after ORDER BY id LIMIT +@limit';
        const query = statement(pageSelect(rows)).safeIntegers(true);
        const head = query.get(after === undefined ? { owner, limit } : { owner, limit, after }) as {
          body: Buffer;
          lastId: bigint | null;
          version: bigint | null;
          hasMore: bigint;
        };
        const page: PlantPage = {
          body: head.body,
          lastId: head.lastId ?? undefined,
          hasMore: head.hasMore === 1n,
          version: String(head.version ?? 0n),
        };
        pages.set(owner, key, page, after);
        return page;
      },
      delete(owner, id) {
        const remove = statement('DELETE FROM plants WHERE owner = ? AND id = ?');
        return ownWrite(
          owner,
          db.transaction(() => remove.run(owner, id).changes === 1 && move(owner, 'delete', id)),
        );
      },
    },
    tokens: {
      async insert(record, secretHash) {
        const insert = statement(
          `INSERT INTO tokens (id, subject, scopes, secret_hash, created_at, expires_at, revoked_at)
           VALUES (?, ?, ?, ?, ?, ?, ?)`,
        );
        await write(() =>
          insert.run(
            record.id,
            record.subject,
            record.scopes.join(','),
            secretHash,
            record.createdAt.toISOString(),
            record.expiresAt?.toISOString() ?? null,
            record.revokedAt?.toISOString() ?? null,
          ),
        );
        tokensByHash.clear();
      },
      cachedByHash: cachedToken,
      async findByHash(secretHash) {
        const cached = cachedToken(secretHash);
        if (cached) return cached;
        const row = statement('SELECT * FROM tokens WHERE secret_hash = ?').get(secretHash) as TokenRow | undefined;
        if (!row) return undefined; // unknown hashes are not cached: random tokens must not grow the cache
        const record = Object.freeze({ ...toTokenRecord(row), secretHash: row.secret_hash });
        tokensByHash.set(secretHash.toString('latin1'), record);
        return record;
      },
      async list() {
        return (statement('SELECT * FROM tokens ORDER BY created_at, id').all() as TokenRow[]).map(toTokenRecord);
      },
      async revoke(id, at) {
        const update = statement('UPDATE tokens SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?');
        const revoked = await write(() => update.run(at.toISOString(), id).changes === 1);
        tokensByHash.clear();
        return revoked;
      },
    },
    webhooks: outbox.repository,
    idempotency: idempotency.repository,
    async migrate() {
      const applied: number[] = [];
      const isApplied = db.prepare('SELECT 1 FROM schema_migrations WHERE version = ?');
      const record = db.prepare('INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)');
      // Migrations commit on their own, outside the group commit: each with its own fsync.
      if (logSync) db.pragma('synchronous = FULL');
      try {
        for (const migration of sqliteMigrations) {
          // Each migration commits on its own, so a failing one keeps those before it. IMMEDIATE takes the write
          // lock before the check, so processes starting together apply each migration once.
          const apply = db.transaction(() => {
            if (isApplied.get(migration.version) !== undefined) return false;
            db.exec(migration.sql);
            record.run(migration.version, new Date().toISOString());
            return true;
          });
          if (apply.immediate()) applied.push(migration.version);
        }
      } finally {
        if (logSync) db.pragma('synchronous = NORMAL');
      }
      return applied;
    },
    async ping() {
      db.prepare('SELECT 1').get();
      watch?.check();
    },
    async close() {
      closed = true;
      watch?.stop();
      wal?.stop();
      if (db.open) db.close();
      // After the connection: closing any descriptor of a file drops every POSIX lock this process holds on it, so
      // closing this one first would drop SQLite's own locks on the -shm file while its connection still counts on them.
      walHeader?.close();
      await keeper?.close();
    },
  };
}
