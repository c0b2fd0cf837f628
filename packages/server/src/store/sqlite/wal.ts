// Keeps the SQLite write-ahead log from staying large. A reader that holds an old snapshot (a long query, or the
// README's own `.backup`) stops checkpoints from restarting the log, so it grows for as long as writes go on; nothing
// shrinks it afterwards unless told. journal_size_limit truncates the log when a checkpoint restarts it, and once
// the writer has been idle for a moment a TRUNCATE checkpoint empties it (tried again later while a reader still pins
// it), without ever waiting on a lock.
import type Database from 'better-sqlite3';

/** Bytes the log is cut back to whenever a checkpoint restarts it. */
export const JOURNAL_SIZE_LIMIT = 4 * 1024 * 1024;
/** How long the writer must have been idle before the log is emptied. */
const IDLE_MS = 1_000;
/** How often an emptying a reader prevented is tried again. */
const RETRY_MS = 5_000;

export interface WalKeeper {
  /** Tell it after each commit. */
  wrote(): void;
  stop(): void;
}

/** Sets the size limit on `db` and empties its log whenever the writer is idle. `busyTimeoutMs` is restored after. */
export function keepWalSmall(db: Database.Database, busyTimeoutMs: number): WalKeeper {
  db.pragma(`journal_size_limit = ${JOURNAL_SIZE_LIMIT}`);
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const schedule = (ms: number) => {
    clearTimeout(timer);
    if (stopped) return;
    timer = setTimeout(checkpoint, ms);
    timer.unref();
  };
  function checkpoint() {
    timer = undefined;
    if (!db.open || db.inTransaction) return schedule(IDLE_MS);
    try {
      // Never wait for a reader or a writer here: busy means "not now", and the next try comes later.
      db.pragma('busy_timeout = 0');
      const [result] = db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number; log: number }[];
      if (result && (result.busy !== 0 || result.log > 0)) schedule(RETRY_MS);
    } catch {
      schedule(RETRY_MS);
    } finally {
      if (db.open) db.pragma(`busy_timeout = ${busyTimeoutMs}`);
    }
  }
  return {
    wrote: () => schedule(IDLE_MS),
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
