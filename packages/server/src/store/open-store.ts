// The registry of store engines: picks the one a DATABASE_URL names (sqlite:<path>, sqlite::memory:, postgres://,
// memory:). The one place that switches; a new engine is its folder plus one line in ENGINES.
import { resolve } from 'node:path';
import { MEMORY_URL, openMemoryStore } from './memory/memory-store.js';
import type { Store } from './store.js';

export interface OpenOptions {
  /** PostgreSQL pool size. */
  poolSize?: number;
  /** PostgreSQL: the database reached directly, for migrations and the change feed (DATABASE_DIRECT_URL). */
  directUrl?: string | null;
  /** PostgreSQL: deadline of each database call in ms (pool acquisition and statement). */
  timeoutMs?: number;
  /** SQLite group commit (default on). */
  groupCommit?: boolean;
  /** Page cache bound in bytes, both engines (default 16 MiB). */
  pageCacheBytes?: number;
  /** SQLite: hears the size of each group-commit batch (metrics). */
  onGroupCommit?: (size: number) => void;
  /** SQLite: create a new database where one was lost (only `plant-store migrate` does; see sqlite/file-guard.ts). */
  recreateLost?: boolean;
}

/** The SQLite file a DATABASE_URL names, or undefined for PostgreSQL and in-memory SQLite. */
export function sqliteFileOf(databaseUrl: string): string | undefined {
  if (databaseUrl === 'sqlite::memory:' || !databaseUrl.startsWith('sqlite:')) return undefined;
  return resolve(databaseUrl.slice('sqlite:'.length));
}

interface Engine {
  /** Store.kind of the stores it opens. */
  kind: string;
  /** True when `databaseUrl` names this engine. */
  accepts(databaseUrl: string): boolean;
  open(databaseUrl: string, options: OpenOptions): Promise<Store> | Store;
}

const ENGINES: readonly Engine[] = [
  { kind: 'postgres', accepts: (url) => /^postgres(ql)?:\/\//.test(url), open: openPostgres },
  { kind: 'sqlite', accepts: (url) => url.startsWith('sqlite:'), open: openSqlite },
  { kind: 'memory', accepts: (url) => url === MEMORY_URL, open: () => openMemoryStore() },
];

/** The engine a DATABASE_URL names, or undefined. */
export function engineOf(databaseUrl: string): string | undefined {
  return ENGINES.find((engine) => engine.accepts(databaseUrl))?.kind;
}

export async function openStore(databaseUrl: string, options: OpenOptions = {}): Promise<Store> {
  const engine = ENGINES.find((candidate) => candidate.accepts(databaseUrl));
  if (!engine) throw new TypeError(`unsupported DATABASE_URL "${databaseUrl}"`);
  return engine.open(databaseUrl, options);
}

// Each engine's module is imported only when named, so a SQLite service never loads pg, nor a PostgreSQL one
// better-sqlite3.
async function openPostgres(databaseUrl: string, options: OpenOptions): Promise<Store> {
  const { openPostgresStore } = await import('./postgres/postgres-store.js');
  return openPostgresStore({
    url: databaseUrl,
    ...(options.directUrl ? { directUrl: options.directUrl } : {}),
    ...(options.poolSize === undefined ? {} : { poolSize: options.poolSize }),
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    ...(options.pageCacheBytes === undefined ? {} : { pageCacheBytes: options.pageCacheBytes }),
  });
}

async function openSqlite(databaseUrl: string, options: OpenOptions): Promise<Store> {
  const sqlite = {
    groupCommit: options.groupCommit ?? true,
    recreateLost: options.recreateLost ?? false,
    ...(options.pageCacheBytes === undefined ? {} : { pageCacheBytes: options.pageCacheBytes }),
    ...(options.onGroupCommit ? { onGroupCommit: options.onGroupCommit } : {}),
  };
  const file = databaseUrl === 'sqlite::memory:' ? ':memory:' : sqliteFileOf(databaseUrl);
  if (!file) throw new TypeError(`unsupported DATABASE_URL "${databaseUrl}"`);
  const { openSqliteStore } = await import('./sqlite/sqlite-store.js');
  return openSqliteStore(file, sqlite);
}
