// Picks the store a DATABASE_URL names: sqlite:<path>, sqlite::memory: or postgres://. The one place that switches.
import { resolve } from 'node:path';
import { openPostgresStore } from './postgres-store.js';
import { openSqliteStore } from './sqlite-store.js';
import type { Store } from './store.js';

export interface OpenOptions {
  /** PostgreSQL pool size. */
  poolSize?: number;
  /** PostgreSQL: deadline of each database call in ms (pool acquisition and statement). */
  timeoutMs?: number;
  /** SQLite group commit (default on). */
  groupCommit?: boolean;
  /** SQLite page cache bound in bytes (default 16 MiB). */
  pageCacheBytes?: number;
  /** SQLite: hears the size of each group-commit batch (metrics). */
  onGroupCommit?: (size: number) => void;
}

export async function openStore(databaseUrl: string, options: OpenOptions = {}): Promise<Store> {
  if (/^postgres(ql)?:\/\//.test(databaseUrl)) {
    return openPostgresStore({
      url: databaseUrl,
      poolSize: options.poolSize ?? 10,
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    });
  }
  const sqlite = {
    groupCommit: options.groupCommit ?? true,
    ...(options.pageCacheBytes === undefined ? {} : { pageCacheBytes: options.pageCacheBytes }),
    ...(options.onGroupCommit ? { onGroupCommit: options.onGroupCommit } : {}),
  };
  if (databaseUrl === 'sqlite::memory:') return openSqliteStore(':memory:', sqlite);
  if (databaseUrl.startsWith('sqlite:')) return openSqliteStore(resolve(databaseUrl.slice('sqlite:'.length)), sqlite);
  throw new TypeError(`unsupported DATABASE_URL "${databaseUrl}"`);
}
