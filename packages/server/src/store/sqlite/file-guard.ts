// Guards the SQLite file a service runs on against being lost unnoticed. While the store is open it watches the path:
// once the file it opened is gone, readiness fails and a tombstone (`<path>.lost`) records when and how it was seen,
// so the next start refuses to create an empty database in its place and lose every token and plant without a word.
// A missing file with its write-ahead log still beside it (a crash after `rm plant-store.db`) is refused the same way.
// Creating a new database where one was lost is an operator's decision: `plant-store migrate` does it on purpose.
import { type BigIntStats, existsSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** Thrown at start-up when the configured SQLite file is missing where a database was expected. */
export class LostDatabaseError extends Error {
  override name = 'LostDatabaseError';
}

const CHECK_EVERY_MS = 1000;

export const tombstoneOf = (path: string) => `${path}.lost`;

/**
 * Before opening `path`: refuses when the file is missing but a database was there (a tombstone, or its -wal/-shm
 * left behind). `recreate` (the `migrate` command) accepts a tombstone, removes it, and lets a new database be created.
 * Returns whether the file exists, so the caller can say that it created one.
 */
export function checkBeforeOpen(path: string, { recreate = false } = {}): { exists: boolean } {
  const tombstone = tombstoneOf(path);
  if (existsSync(path)) {
    rmSync(tombstone, { force: true }); // the file is back (restored): the tombstone has done its job
    return { exists: true };
  }
  const leftovers = ['-wal', '-shm'].map((suffix) => `${path}${suffix}`).filter((file) => existsSync(file));
  if (leftovers.length > 0) {
    throw new LostDatabaseError(
      `the SQLite database ${path} is missing but ${leftovers.join(' and ')} ${leftovers.length > 1 ? 'are' : 'is'} still there: ` +
        'restore the database file from a backup, or move those files away and run `plant-store migrate` to create a new, empty database',
    );
  }
  if (existsSync(tombstone) && !recreate) {
    throw new LostDatabaseError(
      `the SQLite database ${path} was lost while the service ran (see ${tombstone}): restore it from a backup, ` +
        'or run `plant-store migrate` to create a new, empty database on purpose',
    );
  }
  rmSync(tombstone, { force: true });
  return { exists: false };
}

export interface FileWatch {
  /** Throws once the path no longer names the file that was opened (deleted or replaced). */
  check(): void;
  /** Stops watching, after a last check that leaves the tombstone if the file is gone. */
  stop(): void;
}

/** Watches `path`, opened as `opened`, every second until stopped; leaves the tombstone once the file is deleted. */
export function watchFile(path: string, opened: BigIntStats): FileWatch {
  let lost = false;
  const look = (): string | undefined => {
    const now = statSync(path, { bigint: true, throwIfNoEntry: false });
    if (now && now.ino === opened.ino && now.dev === opened.dev) return undefined;
    if (!now && !lost) {
      lost = true;
      try {
        mkdirSync(dirname(path), { recursive: true });
        writeFileSync(
          tombstoneOf(path),
          `${new Date().toISOString()}: process ${process.pid} found ${path} deleted while it had the database open.\n`,
        );
      } catch {
        // A read-only or vanished directory: readiness still fails, which is what an operator sees first.
      }
    }
    return now ? 'replaced' : 'deleted';
  };
  const timer = setInterval(look, CHECK_EVERY_MS);
  timer.unref();
  return {
    check() {
      const what = look();
      if (what) throw new Error(`the SQLite file ${path} is no longer the one this process opened (${what})`);
    },
    stop() {
      clearInterval(timer);
      look();
    },
  };
}
