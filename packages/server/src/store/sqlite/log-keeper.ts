// One worker thread keeps the SQLite store's write-ahead log: it fdatasyncs the log for the group commit (its
// connection commits with synchronous=NORMAL; each sync makes the batches before it as durable as FULL) and runs the
// checkpoints wal.ts schedules, so neither waits on the event loop. One thread, one Node environment (~19 MB RSS, of
// which its exit would give back a quarter), started by the first write that changes a row.
// Requests poll the syncs' progress in shared memory, so a batch is answered within a request of its sync.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

// Shared words (BigInt64: sequence numbers never wrap): the last batch asked for, the last synced (every batch up
// to it is durable, or failed), the last that failed, a close flag, the checkpoint asked for (bits: 1 PASSIVE,
// 2 TRUNCATE, which does all PASSIVE does) and a bell rung by every ask, on which the thread sleeps.
const REQUESTED = 0;
const SYNCED = 1;
const FAILED = 2;
const CLOSING = 3;
const CHECKPOINT = 4;
const BELL = 5;
const MODES = { PASSIVE: 1n, TRUNCATE: 2n } as const;

// The thread, as plain JavaScript (it runs the same on the sources under test and on dist/; getBuiltinModule where
// Node has it (22.3 on), as a worker evaluates its code as a module when the process was started with
// --input-type=module, where require is missing). Each fdatasync covers every batch asked for before it began. A
// pending sync is served before a checkpoint starts, and a checkpoint is synchronous: the longest a sync waits is one
// checkpoint (with busy_timeout 0 it never waits for a lock; 2-10 ms, once a second, under the mixed
// workload, where an fdatasync's own p99 was 8 ms). The checkpointing connection opens at the first one.
const KEEPER = `
const load = process.getBuiltinModule ? (name) => process.getBuiltinModule(name) : require;
const { parentPort, workerData } = load('node:worker_threads');
const { closeSync, fdatasyncSync, fstatSync, openSync, statSync } = load('node:fs');
const { words, path, driver } = workerData;
const log = path + '-wal';
let fd;
const current = () => {
  if (fd !== undefined && fstatSync(fd).ino === statSync(log).ino) return fd;
  if (fd !== undefined) {
    closeSync(fd);
    fd = undefined;
  }
  fd = openSync(log, 'r');
  return fd;
};
let taken = 0n;
const syncAsked = () => {
  const target = Atomics.load(words, ${REQUESTED});
  if (target <= taken) return;
  try {
    fdatasyncSync(current());
  } catch {
    Atomics.store(words, ${FAILED}, target);
  }
  taken = target;
  Atomics.store(words, ${SYNCED}, target);
  parentPort.postMessage(0);
};
let db;
const checkpoint = (asked) => {
  const mode = (asked & ${MODES.TRUNCATE}n) !== 0n ? 'TRUNCATE' : 'PASSIVE';
  try {
    if (db === undefined) {
      const Database = load('node:module').createRequire(driver)(driver);
      db = new Database(path, { fileMustExist: true });
      db.pragma('busy_timeout = 0');
    }
  } catch {
    parentPort.postMessage({ mode, failed: true });
    return;
  }
  try {
    const [result] = db.pragma('wal_checkpoint(' + mode + ')');
    parentPort.postMessage({ mode, busy: result.busy !== 0, log: result.log });
  } catch {
    parentPort.postMessage({ mode, busy: true, log: -1 });
  }
};
let bell = 0n;
for (;;) {
  Atomics.wait(words, ${BELL}, bell);
  bell = Atomics.load(words, ${BELL});
  syncAsked();
  if (Atomics.load(words, ${CLOSING}) !== 0n) {
    // The close's own request was stored before its flag: this sync covers every one asked before the close.
    syncAsked();
    break;
  }
  // A sync asked during the checkpoint has rung the bell: the next wait returns at once.
  const asked = Atomics.exchange(words, ${CHECKPOINT}, 0n);
  if (asked !== 0n) checkpoint(asked);
}
if (db !== undefined) db.close();
if (fd !== undefined) closeSync(fd);
`;

export type CheckpointMode = keyof typeof MODES;

/** A checkpoint's result; `failed` when the database could not be opened for it (say the file went away). */
export type Checkpointed =
  | { mode: CheckpointMode; failed: true }
  | { mode: CheckpointMode; failed?: undefined; busy: boolean; log: number };

export interface LogKeeper {
  /** Resolves once every transaction committed before the call is on disk. */
  sync(): Promise<void>;
  /**
   * Answers every sync the thread has finished: one load from shared memory when a sync is pending, nothing
   * otherwise. The store calls it as each request begins, so a finished sync is answered within a request's time.
   */
  poll(): void;
  /** Asks for a checkpoint; asks the thread has not taken yet merge (TRUNCATE covers PASSIVE). */
  checkpoint(mode: CheckpointMode): void;
  /** `listener` hears each checkpoint's result. */
  onCheckpointed(listener: (result: Checkpointed) => void): void;
  /** Ends the thread, after a last sync of whatever was asked for, and closes its descriptor and connection. */
  close(): Promise<void>;
}

interface Waiting {
  seq: bigint;
  resolve: () => void;
  reject: (error: Error) => void;
}

/**
 * The log keeper of the database at `path` (its log is `<path>-wal`). Its thread starts at the first sync or
 * checkpoint asked for, so a process that never writes (a read-only instance, an export) never holds one.
 */
export function keepLogOf(path: string): LogKeeper {
  const words = new BigInt64Array(new SharedArrayBuffer(6 * BigInt64Array.BYTES_PER_ELEMENT));
  let worker: Worker | undefined;
  let exited: Promise<void> = Promise.resolve();
  const ring = () => {
    Atomics.add(words, BELL, 1n);
    Atomics.notify(words, BELL);
  };
  let dead = false;
  // A thread that dies answers every sync it had not synced, and every later one, as failed (503), rather than never.
  const broken = () => {
    dead = true;
    poll();
    Atomics.store(words, FAILED, BigInt(Number.MAX_SAFE_INTEGER));
    Atomics.store(words, SYNCED, BigInt(Number.MAX_SAFE_INTEGER));
    poll();
  };
  let requested = 0n;
  // The syncs not answered yet, in the order asked. While there are any, the thread holds the process open, as a
  // pending fs call would: a command that writes and then closes must not exit before its write is durable.
  const waiting: Waiting[] = [];
  /** Once closing, the thread holds the process open until it has exited, its pending syncs answered or not. */
  let closing = false;
  let checkpointed: (result: Checkpointed) => void = () => {};
  // The thread, started at the first ask: it reads the words as it finds them, so the asks made while it was
  // starting are served at once.
  const thread = (): Worker => {
    if (worker) return worker;
    const started = new Worker(KEEPER, {
      eval: true,
      workerData: { words, path, driver: createRequire(import.meta.url).resolve('better-sqlite3') },
    });
    worker = started;
    started.unref();
    exited = new Promise<void>((resolve) => started.once('exit', () => resolve()));
    started.once('error', broken);
    started.once('exit', broken);
    // With no request coming to poll, the thread's message after each sync answers it.
    started.on('message', (message: 0 | Checkpointed) => {
      if (message === 0) poll();
      else checkpointed(message);
    });
    return started;
  };

  const poll = () => {
    if (waiting.length === 0) return;
    const synced = Atomics.load(words, SYNCED);
    if (synced < waiting[0]!.seq) return;
    const failed = Atomics.load(words, FAILED);
    let answered = 1;
    while (answered < waiting.length && waiting[answered]!.seq <= synced) answered++;
    const done = waiting.splice(0, answered);
    if (waiting.length === 0 && !closing) worker?.unref();
    for (const item of done) {
      if (failed >= item.seq) item.reject(new Error(`the fdatasync of ${path}-wal failed`));
      else item.resolve();
    }
  };

  return {
    sync() {
      const seq = ++requested;
      Atomics.store(words, REQUESTED, seq);
      const keeper = dead ? worker : thread();
      ring();
      return new Promise<void>((resolve, reject) => {
        if (waiting.length === 0) keeper?.ref();
        waiting.push({ seq, resolve, reject });
        // Only after the thread has died (it never syncs a request before it is made).
        if (Atomics.load(words, SYNCED) >= seq) poll();
      });
    },
    poll,
    checkpoint(mode) {
      if (dead || closing) return;
      Atomics.or(words, CHECKPOINT, MODES[mode]);
      thread();
      ring();
    },
    onCheckpointed(listener) {
      checkpointed = listener;
    },
    close() {
      closing = true;
      // Nothing was ever asked of a thread that never started: nothing to sync or close, and nothing is started later.
      if (!worker) {
        broken();
        return exited;
      }
      // A request the thread cannot miss, even if it is not asleep yet: its last sync, stored before the flag.
      Atomics.store(words, REQUESTED, ++requested);
      Atomics.store(words, CLOSING, 1n);
      ring();
      worker.ref();
      return exited;
    },
  };
}
