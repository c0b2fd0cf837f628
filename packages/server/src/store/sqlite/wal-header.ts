// A cheaper first look than `PRAGMA data_version` (a read transaction, two fcntl calls) for another connection's
// commit: every WAL commit rewrites the wal-index header (the -shm file's first 96 bytes, sqlite.org/walformat.html),
// so one pread tells whether anything can have committed; any difference sends the caller to data_version.
import { closeSync, openSync, readSync } from 'node:fs';

const HEADER_BYTES = 96;

export interface WalHeader {
  /**
   * Reads the header and says whether it is what the last call saw. Call it before reading data_version, never after:
   * a commit between the two then moves the header after this look, and the next call reports it.
   */
  unchanged(): boolean;
  /** Makes the next call report a change: what the last one saw could not be acted on (the feed failed to read). */
  forget(): void;
  /** Closes the descriptor: only after the database connection is closed (see sqlite-store.ts's close). */
  close(): void;
}

/** The wal-index header of the WAL database at `path` (its -shm file, which a WAL connection keeps open). */
export function watchWalHeader(path: string): WalHeader {
  let fd: number | undefined;
  const seen = Buffer.alloc(HEADER_BYTES);
  const now = Buffer.alloc(HEADER_BYTES);
  let known = false;
  return {
    unchanged() {
      let read = 0;
      try {
        // Opened on first use: SQLite creates the -shm file with the connection's first read, not at open.
        fd ??= openSync(`${path}-shm`, 'r');
        read = readSync(fd, now, 0, HEADER_BYTES, 0);
      } catch {
        // No -shm file yet, or one that cannot be read: the caller reads data_version.
      }
      if (read !== HEADER_BYTES) {
        known = false;
        return false;
      }
      if (known && now.equals(seen)) return true;
      now.copy(seen);
      known = true;
      return false;
    },
    forget() {
      known = false;
    },
    close() {
      if (fd !== undefined) closeSync(fd);
      fd = undefined;
    },
  };
}
