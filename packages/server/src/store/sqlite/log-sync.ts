// Makes the SQLite store's commits durable: its connection commits with synchronous=NORMAL, and an fdatasync of the
// log on a thread of its own, never waited for on the event loop, makes them as durable as FULL; requests poll the
// thread's progress, so a batch is answered within a request of its sync. The thread re-opens a log that moved.
import { Worker } from 'node:worker_threads';

// Shared words (BigInt64: sequence numbers never wrap): the last batch asked for, the last synced (every batch up
// to it is durable, or failed), the last that failed, and a close flag.
const REQUESTED = 0;
const SYNCED = 1;
const FAILED = 2;
const CLOSING = 3;

// The syncing thread, as plain JavaScript (it runs the same on the sources under test and on dist/; getBuiltinModule
// where Node has it (22.3 on), as a worker evaluates its code as a module when the process was started with
// --input-type=module, where require is missing). Each fdatasync covers every batch asked for before it began.
const SYNCER = `
const load = process.getBuiltinModule ? (name) => process.getBuiltinModule(name) : require;
const { parentPort, workerData } = load('node:worker_threads');
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
    try {
      fdatasyncSync(current());
    } catch {
      Atomics.store(words, ${FAILED}, target);
    }
    taken = target;
    Atomics.store(words, ${SYNCED}, target);
    parentPort.postMessage(0);
  }
  if (Atomics.load(words, ${CLOSING}) !== 0n) break;
}
if (fd !== undefined) closeSync(fd);
`;

export interface LogSync {
  /** Resolves once every transaction committed before the call is on disk. */
  sync(): Promise<void>;
  /**
   * Answers every sync the thread has finished: one load from shared memory when a sync is pending, nothing
   * otherwise. The store calls it as each request begins, so a finished sync is answered within a request's time.
   */
  poll(): void;
  /** Ends the thread, after a last sync of whatever was asked for, and closes its descriptor. */
  close(): Promise<void>;
}

interface Waiting {
  seq: bigint;
  resolve: () => void;
  reject: (error: Error) => void;
}

/** The log sync of the database at `path` (its log is `<path>-wal`). */
export function syncLogOf(path: string): LogSync {
  const words = new BigInt64Array(new SharedArrayBuffer(4 * BigInt64Array.BYTES_PER_ELEMENT));
  const worker = new Worker(SYNCER, { eval: true, workerData: { words, log: `${path}-wal` } });
  worker.unref();
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  // A thread that dies answers every sync it had not synced, and every later one, as failed (503), rather than never.
  const broken = () => {
    poll();
    Atomics.store(words, FAILED, BigInt(Number.MAX_SAFE_INTEGER));
    Atomics.store(words, SYNCED, BigInt(Number.MAX_SAFE_INTEGER));
    poll();
  };
  worker.once('error', broken);
  worker.once('exit', broken);
  let requested = 0n;
  // The syncs not answered yet, in the order asked. While there are any, the thread holds the process open, as a
  // pending fs call would: a command that writes and then closes must not exit before its write is durable.
  const waiting: Waiting[] = [];
  /** Once closing, the thread holds the process open until it has exited, its pending syncs answered or not. */
  let closing = false;

  const poll = () => {
    if (waiting.length === 0) return;
    const synced = Atomics.load(words, SYNCED);
    if (synced < waiting[0]!.seq) return;
    const failed = Atomics.load(words, FAILED);
    let answered = 1;
    while (answered < waiting.length && waiting[answered]!.seq <= synced) answered++;
    const done = waiting.splice(0, answered);
    if (waiting.length === 0 && !closing) worker.unref();
    for (const item of done) {
      if (failed >= item.seq) item.reject(new Error(`the fdatasync of ${path}-wal failed`));
      else item.resolve();
    }
  };
  // With no request coming to poll, the thread's message after each sync answers it.
  worker.on('message', () => poll());

  return {
    sync() {
      const seq = ++requested;
      Atomics.store(words, REQUESTED, seq);
      Atomics.notify(words, REQUESTED);
      return new Promise<void>((resolve, reject) => {
        if (waiting.length === 0) worker.ref();
        waiting.push({ seq, resolve, reject });
        // Only after the thread has died (it never syncs a request before it is made).
        if (Atomics.load(words, SYNCED) >= seq) poll();
      });
    },
    poll,
    close() {
      closing = true;
      // A request the thread cannot miss, even if it is not asleep yet: its last sync, then it sees the flag.
      Atomics.store(words, CLOSING, 1n);
      Atomics.store(words, REQUESTED, ++requested);
      Atomics.notify(words, REQUESTED);
      worker.ref();
      return exited;
    },
  };
}
