// Group commit for SQLite writes: the writes of one event-loop turn share one transaction, each answered once its
// batch is durable (`durable`: log-keeper.ts). A batch that finds the write lock taken is retried from a timer, never in
// SQLite's busy handler, which sleeps on the event loop.
import type { Database } from 'better-sqlite3';
import { StoreUnavailableError } from '../store.js';

// SQLite errors that mean "cannot write right now" rather than a bug: locked by another process, disk full or failing.
const UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|FULL|IOERR|READONLY|CANTOPEN|PROTOCOL)/;

/** A write failure as the service reports it: 503 for a database that cannot take writes now, else as it was. */
export function asStoreError(error: unknown): unknown {
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && UNAVAILABLE.test(code)) {
    return new StoreUnavailableError(`the SQLite database cannot take writes (${code})`, { cause: error });
  }
  return error;
}

interface Pending<T> {
  write: () => T;
  resolve: (value: T) => void;
  reject: (error: unknown) => void;
  /** When the write was queued (performance.now()), for the lock-wait deadline. */
  since: number;
}

/** The pauses between tries for a write lock another connection holds, in ms; the last repeats. */
const LOCK_RETRY_MS = [0, 1, 1, 2, 2, 4];

/**
 * Returns `enqueue`, which runs a write in the next batch transaction and resolves once that batch is durable.
 * `onBatch` hears each batch's size as it commits (metrics) and whether it changed a row, `onRollback` each batch
 * whose transaction failed after its writes ran. `durable`, when given, makes a committed batch that changed a row
 * durable (the connection then commits without syncing itself); a failure there answers the batch with 503.
 */
export function createGroupCommit(
  db: Database,
  maxBatch = 256,
  onBatch?: (size: number, changed: boolean) => void,
  durable?: () => Promise<void>,
  onRollback?: () => void,
): <T>(write: () => T) => Promise<T> {
  let queue: Pending<unknown>[] = [];
  let scheduled = false;
  /** Whether a batch's sync is running, and whether a flush waits for it to return. */
  let syncing = false;
  let heldBack = false;
  /** How long a write may wait for the lock in all: the connection's busy_timeout, read once. */
  const lockWaitMs = Number(db.pragma('busy_timeout', { simple: true }));
  let lockTries = 0;
  /**
   * Rows this connection has inserted, updated or deleted (triggers' included). A batch that left it unmoved wrote no
   * page (no write here runs DDL): nothing to sync or checkpoint (a delete that found nothing, a create refused as a
   * duplicate).
   */
  const changes = db.prepare('SELECT total_changes()').pluck();

  /** Runs `flush` again once the lock may be free, after refusing the writes that have waited too long. */
  const retryLater = (batch: Pending<unknown>[], error: unknown) => {
    const now = performance.now();
    const waiting: Pending<unknown>[] = [];
    for (const item of batch) {
      if (now - item.since >= lockWaitMs) item.reject(asStoreError(error));
      else waiting.push(item);
    }
    queue = waiting.concat(queue);
    if (queue.length === 0 || scheduled) return;
    scheduled = true;
    const pause = LOCK_RETRY_MS[Math.min(lockTries++, LOCK_RETRY_MS.length - 1)]!;
    if (pause === 0) setImmediate(flush);
    else setTimeout(flush, pause);
  };

  const flush = () => {
    scheduled = false;
    // One sync at a time: the writes that arrive while it runs make the next batch, committed as it returns. Without
    // this, a batch answered in one turn came back split over the next turns (creates only: a tenth of the batches
    // held 4 writes or fewer where they held 38 or more), each part with a commit and a sync of its own.
    if (syncing) {
      heldBack = true;
      return;
    }
    const batch = queue.length > maxBatch ? queue.splice(0, maxBatch) : queue;
    if (batch.length === 0) return;
    if (batch === queue) queue = [];
    const outcomes: ({ ok: true; value: unknown } | { ok: false; error: unknown })[] = [];
    let began = false;
    const before = changes.get();
    try {
      // A lock held by another connection is answered at once (SQLITE_BUSY) rather than slept on; restored below.
      // (A prepared PRAGMA would not do: SQLite applies busy_timeout when the statement is compiled. exec, not
      // db.pragma: the pair cost 2.3 us a batch through exec and 24 us through db.pragma, which builds a statement
      // object and reads its rows.)
      db.exec('PRAGMA busy_timeout = 0');
      // IMMEDIATE: the write lock is taken before the first statement. A deferred
      // transaction that reads first (a webhook claim counts leases, a keyed create looks up its key) would start
      // as a reader, and its first write would then fail at once with SQLITE_BUSY when another process on the same
      // file has committed meanwhile: SQLite cannot wait there without risking a deadlock.
      db.transaction(() => {
        began = true;
        for (const item of batch) {
          // A failing statement rolls back only itself; the others in the batch still commit.
          try {
            outcomes.push({ ok: true, value: item.write() });
          } catch (error) {
            outcomes.push({ ok: false, error });
          }
        }
      }).immediate();
    } catch (error) {
      if (!began && String((error as { code?: unknown }).code).startsWith('SQLITE_BUSY')) {
        return retryLater(batch, error);
      }
      onRollback?.();
      for (const item of batch) item.reject(asStoreError(error));
      return;
    } finally {
      if (db.open) db.exec(`PRAGMA busy_timeout = ${lockWaitMs}`);
    }
    lockTries = 0;
    const changed = changes.get() !== before;
    onBatch?.(batch.length, changed);
    if (queue.length > 0 && !scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
    const answer = () =>
      batch.forEach((item, index) => {
        const outcome = outcomes[index]!;
        if (outcome.ok) item.resolve(outcome.value);
        else item.reject(asStoreError(outcome.error));
      });
    if (!durable || !changed) return answer();
    syncing = true;
    durable()
      .then(answer, (error: unknown) => {
        const unavailable = new StoreUnavailableError('the SQLite log could not be synced to disk', { cause: error });
        for (const item of batch) item.reject(unavailable);
      })
      .then(() => {
        syncing = false;
        if (heldBack) {
          heldBack = false;
          flush();
        }
      });
  };

  return <T>(write: () => T) =>
    new Promise<T>((resolve, reject) => {
      queue.push({ write, resolve, reject, since: performance.now() } as Pending<unknown>);
      if (queue.length >= maxBatch) flush();
      else if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    });
}
