// Keeps the SQLite write-ahead log small without checkpointing on the event loop (a checkpoint's fsyncs stalled every
// request): a worker thread checkpoints PASSIVE after commits and TRUNCATE when idle; journal_size_limit cuts back a
// log that a reader holding an old snapshot let grow.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';

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

// The checkpointer thread, as plain JavaScript (it runs the same on the sources under test and on dist/). It answers
// each mode it is sent with the checkpoint's result, or with `busy` when SQLite refused (a lock was held).
const CHECKPOINTER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path, { fileMustExist: true });
db.pragma('busy_timeout = 0');
parentPort.on('message', (mode) => {
  if (mode === 'close') {
    db.close();
    parentPort.close();
    return;
  }
  try {
    const [result] = db.pragma('wal_checkpoint(' + mode + ')');
    parentPort.postMessage({ mode, busy: result.busy !== 0, log: result.log });
  } catch {
    parentPort.postMessage({ mode, busy: true, log: -1 });
  }
});
`;

export interface WalKeeper {
  /** Tell it after each commit. */
  wrote(): void;
  stop(): void;
}

/** Stops `db` (the serving connection to `path`) checkpointing and keeps the log small from a worker thread. */
export function keepWalSmall(db: Database.Database, path: string): WalKeeper {
  db.pragma(`journal_size_limit = ${JOURNAL_SIZE_LIMIT}`);
  db.pragma('wal_autocheckpoint = 0');
  const worker = new Worker(CHECKPOINTER, {
    eval: true,
    workerData: { driver: createRequire(import.meta.url).resolve('better-sqlite3'), path },
  });
  worker.unref();
  let stopped = false;
  let passive: NodeJS.Timeout | undefined;
  let idle: NodeJS.Timeout | undefined;
  const send = (mode: 'PASSIVE' | 'TRUNCATE') => {
    if (!stopped) worker.postMessage(mode);
  };
  const emptyAfter = (ms: number) => {
    clearTimeout(idle);
    if (stopped) return;
    idle = setTimeout(() => send('TRUNCATE'), ms);
    idle.unref();
  };
  worker.on('message', ({ mode, busy, log }: { mode: string; busy: boolean; log: number }) => {
    if (mode === 'TRUNCATE' && (busy || log > 0)) emptyAfter(RETRY_MS);
  });
  // A checkpointer that fails (say the file went away) leaves the log to grow, as a stopped one would; the store's
  // readiness reports a lost file.
  worker.on('error', () => {
    stopped = true;
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
      if (!stopped) worker.postMessage('close');
      stopped = true;
    },
  };
}
