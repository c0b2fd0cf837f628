// Makes the SQLite store's commits durable off the event loop. The store's connection commits with
// synchronous=NORMAL, which writes a transaction's frames to the write-ahead log without an fsync; fdatasync of the
// log file on libuv's thread pool then makes everything committed so far durable, as synchronous=FULL would have,
// while the event loop goes on serving. The log is the same inode for as long as the store's connection is open
// (SQLite truncates it in place and deletes it only when the last connection closes); it is re-opened should the
// path ever name another file, so a sync never lands on a log SQLite no longer writes.
import { closeSync, fdatasync, fstatSync, openSync, statSync } from 'node:fs';

export interface LogSync {
  /** Resolves once every transaction committed before the call is on disk. */
  sync(): Promise<void>;
  close(): void;
}

/** The log sync of the database at `path` (its log is `<path>-wal`). */
export function syncLogOf(path: string): LogSync {
  const log = `${path}-wal`;
  let fd: number | undefined;
  const current = (): number => {
    if (fd !== undefined && fstatSync(fd).ino === statSync(log).ino) return fd;
    if (fd !== undefined) closeSync(fd);
    fd = openSync(log, 'r');
    return fd;
  };
  return {
    sync: () =>
      new Promise<void>((resolve, reject) => {
        fdatasync(current(), (error) => (error ? reject(error) : resolve()));
      }),
    close() {
      if (fd !== undefined) closeSync(fd);
      fd = undefined;
    },
  };
}
