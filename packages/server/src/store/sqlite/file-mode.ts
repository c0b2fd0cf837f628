// The SQLite file holds the webhook signing secrets and every token's hash: like PostgreSQL's data folder, it is
// readable by its owner alone. A new database is created 0600 in a folder created 0700 (SQLite gives its -wal and
// -shm files the database file's mode); an existing file that others can read is left as it is, with a warning at
// start-up saying how to fix it.
import { closeSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

/** Creates `path`'s folder (0700) and the empty database file (0600) when missing; warns when others can read it. */
export function prepareDatabaseFile(path: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  try {
    closeSync(openSync(path, 'wx', 0o600));
    return;
  } catch (error) {
    if ((error as { code?: string }).code !== 'EEXIST') throw error;
  }
  const mode = statSync(path).mode & 0o777;
  if ((mode & 0o077) !== 0) {
    process.emitWarning(
      `the SQLite database ${path} is readable by other users (mode ${mode.toString(8).padStart(4, '0')}); it holds ` +
        `webhook signing secrets and token hashes: chmod 600 ${path} (and its -wal and -shm files)`,
      { code: 'PLANT_STORE_SQLITE_PERMISSIONS' },
    );
  }
}
