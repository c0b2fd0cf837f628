// Makes the SQLite store's commits durable. The store's connection commits with synchronous=NORMAL, which writes a
// transaction's frames to the write-ahead log without an fsync; an fdatasync of the log then makes everything
// committed before it durable, as synchronous=FULL would have.
//
// The fdatasync runs on a thread of its own, and the event loop waits for it only briefly: a sync the disk answers
// within WAIT_MS is waited for right there (Atomics.wait), so a group-committed batch is answered in the same turn
// of the event loop as its commit; one that takes longer is left to finish while the loop goes on serving, and its
// batch is answered once the thread reports it (Atomics.waitAsync). Left to libuv's thread pool, every sync was
// noticed one or two turns later (the next poll phase had started before the sync returned), and a create crossed
// two to three turns where a read crossed none; on the mixed workload (one create in ten) the creates made the p99.
// The wait is skipped while the last sync took longer than WAIT_MS (a slow or stalled disk costs the loop nothing).
//
// The log is the same inode for as long as the store's connection is open (SQLite truncates it in place and deletes
// it only when the last connection closes); the thread re-opens it should the path ever name another file, so a
// sync never lands on a log SQLite no longer writes.
import { Worker } from 'node:worker_threads';

/** The longest the event loop waits for a sync before leaving it to finish in the background, in ms. */
const WAIT_MS = 1;

// Shared words (BigInt64: sequence numbers never wrap): the last batch asked for, the last synced (every batch up
// to it is durable, or failed), the last that failed, how long the last sync took (us), and a close flag.
const REQUESTED = 0;
const SYNCED = 1;
const FAILED = 2;
const LAST_US = 3;
const CLOSING = 4;

// Atomics.waitAsync (Node 16 on) is typed only from lib ES2024; the project compiles against ES2023.
const waitAsync = (
  Atomics as unknown as {
    waitAsync(array: BigInt64Array, index: number, value: bigint): { async: boolean; value: Promise<unknown> | string };
  }
).waitAsync;

// The syncing thread, as plain JavaScript (it runs the same on the sources under test and on dist/; getBuiltinModule
// where Node has it (22.3 on), as a worker evaluates its code as a module when the process was started with
// --input-type=module, where require is missing). Each fdatasync covers every batch asked for before it began.
const SYNCER = `
const load = process.getBuiltinModule ? (name) => process.getBuiltinModule(name) : require;
const { workerData } = load('node:worker_threads');
const { closeSync, fdatasyncSync, fstatSync, openSync, statSync } = load('node:fs');
const { words, log } = workerData;
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
for (;;) {
  Atomics.wait(words, ${REQUESTED}, taken);
  const target = Atomics.load(words, ${REQUESTED});
  if (target > taken) {
    const started = performance.now();
    try {
      fdatasyncSync(current());
    } catch {
      Atomics.store(words, ${FAILED}, target);
    }
    Atomics.store(words, ${LAST_US}, BigInt(Math.round((performance.now() - started) * 1000)));
    taken = target;
    Atomics.store(words, ${SYNCED}, target);
    Atomics.notify(words, ${SYNCED});
  }
  if (Atomics.load(words, ${CLOSING}) !== 0n) break;
}
if (fd !== undefined) closeSync(fd);
`;

export interface LogSync {
  /** Resolves once every transaction committed before the call is on disk. */
  sync(): Promise<void>;
  /** Ends the thread, after a last sync of whatever was asked for, and closes its descriptor. */
  close(): Promise<void>;
}

/**
 * The log sync of the database at `path` (its log is `<path>-wal`). `waitMs` is how long `sync` may hold the event
 * loop for a fast disk (0: never).
 */
export function syncLogOf(path: string, { waitMs = WAIT_MS } = {}): LogSync {
  const words = new BigInt64Array(new SharedArrayBuffer(5 * BigInt64Array.BYTES_PER_ELEMENT));
  const worker = new Worker(SYNCER, { eval: true, workerData: { words, log: `${path}-wal` } });
  worker.unref();
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  // A thread that dies answers every sync, past and future, as failed (503), rather than never.
  const broken = () => {
    Atomics.store(words, FAILED, BigInt(Number.MAX_SAFE_INTEGER));
    Atomics.store(words, SYNCED, BigInt(Number.MAX_SAFE_INTEGER));
    Atomics.notify(words, SYNCED);
  };
  worker.once('error', broken);
  worker.once('exit', broken);
  const waitUs = BigInt(Math.round(waitMs * 1000));
  let requested = 0n;
  // A sync waited for in the background holds the process open, as a pending fs call would (a pending waitAsync
  // does not): a command that writes and then closes must not exit before its write is durable.
  let background = 0;
  const settled = () => {
    if (--background === 0) worker.unref();
  };

  const outcome = (seq: bigint): Promise<void> =>
    Atomics.load(words, FAILED) >= seq
      ? Promise.reject(new Error(`the fdatasync of ${path}-wal failed`))
      : Promise.resolve();
  const later = (seq: bigint): Promise<void> => {
    const synced = Atomics.load(words, SYNCED);
    if (synced >= seq) return outcome(seq);
    const waiting = waitAsync(words, SYNCED, synced);
    return (waiting.async ? (waiting.value as Promise<unknown>) : Promise.resolve()).then(() => later(seq));
  };
  const settle = (seq: bigint): Promise<void> => {
    if (Atomics.load(words, SYNCED) >= seq) return outcome(seq);
    if (background++ === 0) worker.ref();
    const done = later(seq);
    done.then(settled, settled);
    return done;
  };

  return {
    sync() {
      const seq = ++requested;
      Atomics.store(words, REQUESTED, seq);
      Atomics.notify(words, REQUESTED);
      if (waitMs > 0 && Atomics.load(words, LAST_US) <= waitUs) {
        const deadline = performance.now() + waitMs;
        for (let synced = Atomics.load(words, SYNCED); synced < seq; synced = Atomics.load(words, SYNCED)) {
          const left = deadline - performance.now();
          if (left <= 0) break;
          Atomics.wait(words, SYNCED, synced, left);
        }
      }
      return settle(seq);
    },
    close() {
      // A request the thread cannot miss, even if it is not asleep yet: its last sync, then it sees the flag.
      Atomics.store(words, CLOSING, 1n);
      Atomics.store(words, REQUESTED, ++requested);
      Atomics.notify(words, REQUESTED);
      worker.ref();
      return exited;
    },
  };
}
