// Keeps the SQLite write-ahead log small without checkpointing on the event loop (a checkpoint's fsyncs stalled every
// request): the log keeper's thread checkpoints PASSIVE after commits and TRUNCATE when idle, as this schedules;
// journal_size_limit cuts back a log that a reader holding an old snapshot let grow.
import type Database from 'better-sqlite3';
import type { LogKeeper } from './log-keeper.js';

/** Bytes the log is cut back to whenever a write restarts it. */
export const JOURNAL_SIZE_LIMIT = 64 * 1024 * 1024;
/**
 * The most time between a commit and the passive checkpoint that copies it into the database file. Each checkpoint
 * copies the pages written since the last and fsyncs the file, so a short period copies hot pages (the owner's
 * version, the last leaf) over and over: 1 s copies about as often as SQLite's own 1,000 pages did under load.
 */
const CHECKPOINT_MS = 1_000;
/** How long the writer must have been idle before the log is emptied. */
const IDLE_MS = 1_000;
/** How often an emptying a reader prevented is tried again. */
const RETRY_MS = 5_000;

export interface WalKeeper {
  /** Tell it after each commit. */
  wrote(): void;
  stop(): void;
}

/**
 * Stops `db` (the serving connection) checkpointing and keeps the log small from the keeper's thread, which answers
 * each checkpoint with its result, `busy` when SQLite refused (a lock was held).
 */
export function keepWalSmall(
  db: Database.Database,
  keeper: Pick<LogKeeper, 'checkpoint' | 'onCheckpointed'>,
): WalKeeper {
  db.pragma(`journal_size_limit = ${JOURNAL_SIZE_LIMIT}`);
  db.pragma('wal_autocheckpoint = 0');
  let stopped = false;
  let passive: NodeJS.Timeout | undefined;
  let idle: NodeJS.Timeout | undefined;
  const send = (mode: 'PASSIVE' | 'TRUNCATE') => {
    if (!stopped) keeper.checkpoint(mode);
  };
  const emptyAfter = (ms: number) => {
    clearTimeout(idle);
    if (stopped) return;
    idle = setTimeout(() => send('TRUNCATE'), ms);
    idle.unref();
  };
  keeper.onCheckpointed((result) => {
    // A checkpointer that cannot open the database (say the file went away) leaves the log to grow, as a stopped one
    // would; the store's readiness reports a lost file.
    if (result.failed) stopped = true;
    else if (result.mode === 'TRUNCATE' && (result.busy || result.log > 0)) emptyAfter(RETRY_MS);
  });
  return {
    wrote() {
      if (passive === undefined && !stopped) {
        passive = setTimeout(() => {
          passive = undefined;
          send('PASSIVE');
        }, CHECKPOINT_MS);
        passive.unref();
      }
      emptyAfter(IDLE_MS);
    },
    stop() {
      clearTimeout(passive);
      clearTimeout(idle);
      stopped = true;
    },
  };
}
