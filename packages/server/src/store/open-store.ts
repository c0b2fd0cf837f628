// The registry of store engines: picks the one a DATABASE_URL names (sqlite:<path>, sqlite::memory:, postgres://,
// memory:). The one place that switches: the configuration checks DATABASE_URL against it, the start line and the
// CLI describe the database through it, openStore opens through it. A new engine is its folder plus one line in
// ENGINES.
import { resolve } from 'node:path';
import type { RunLog } from '../failure-run.js';
import type { ArchiveEngine } from './archive/format.js';
import { MEMORY_URL, openMemoryStore } from './memory/memory-store.js';
import { describePostgresUrl } from './postgres/describe-url.js';
import type { Store } from './store.js';

export interface OpenOptions {
  /** PostgreSQL pool size. */
  poolSize?: number;
  /** PostgreSQL: the database reached directly, for migrations and the change feed (DATABASE_DIRECT_URL). */
  directUrl?: string | null;
  /** PostgreSQL: deadline of each database call in ms (pool acquisition and statement). */
  timeoutMs?: number;
  /** PostgreSQL: where the change feed's lost session connection is said. */
  log?: RunLog;
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
  /** The DATABASE_URL forms it takes, as the configuration's refusal lists them. */
  forms: readonly string[];
  /** True when `databaseUrl` names this engine. */
  accepts(databaseUrl: string): boolean;
  /** Where `databaseUrl` points, for people (the start line, the CLI); never a password. */
  describe(databaseUrl: string): string;
  open(databaseUrl: string, options: OpenOptions): Promise<Store> | Store;
  /** Export and import (`plant-store export|import`); none where nothing is kept. */
  archive?: () => Promise<ArchiveEngine>;
}

const ENGINES: readonly Engine[] = [
  {
    kind: 'sqlite',
    forms: ['sqlite:<file path>', 'sqlite::memory:'],
    accepts: (url) => /^sqlite:./.test(url),
    describe: (url) =>
      url === 'sqlite::memory:' ? 'an in-memory SQLite database' : `the SQLite database ${sqliteFileOf(url)}`,
    open: openSqlite,
    archive: sqliteArchive,
  },
  {
    kind: 'postgres',
    forms: ['postgres://user@host:port/database'],
    accepts: (url) => /^postgres(ql)?:\/\/./.test(url),
    describe: describePostgresUrl,
    open: openPostgres,
    archive: postgresArchive,
  },
  {
    kind: 'memory',
    forms: [MEMORY_URL],
    accepts: (url) => url === MEMORY_URL,
    describe: () => 'the memory engine (nothing is kept)',
    open: () => openMemoryStore(),
  },
];

/** Every DATABASE_URL form the engines take, for a refusal: `a, b or c`. */
export const DATABASE_URL_FORMS = ENGINES.flatMap((engine) => engine.forms)
  .join(', ')
  .replace(/, ([^,]*)$/, ' or $1');

/** The engine a DATABASE_URL names, or undefined. */
export function engineFor(databaseUrl: string): Engine | undefined {
  return ENGINES.find((engine) => engine.accepts(databaseUrl));
}

/** The kind of engine a DATABASE_URL names, or undefined. */
export function engineOf(databaseUrl: string): string | undefined {
  return engineFor(databaseUrl)?.kind;
}

export async function openStore(databaseUrl: string, options: OpenOptions = {}): Promise<Store> {
  const engine = engineFor(databaseUrl);
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
    ...(options.log ? { log: options.log } : {}),
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

/** The export and import of the engine a DATABASE_URL names, or undefined where it keeps nothing to export. */
export function archiveEngineOf(databaseUrl: string): Promise<ArchiveEngine> | undefined {
  if (databaseUrl === 'sqlite::memory:') return undefined;
  return engineFor(databaseUrl)?.archive?.();
}

async function postgresArchive(): Promise<ArchiveEngine> {
  const [{ postgresSnapshot }, { postgresLoad }] = await Promise.all([
    import('./postgres/snapshot.js'),
    import('./postgres/import.js'),
  ]);
  return { snapshot: postgresSnapshot, load: postgresLoad };
}

async function sqliteArchive(): Promise<ArchiveEngine> {
  const [{ sqliteSnapshot }, { sqliteLoad }] = await Promise.all([
    import('./sqlite/snapshot.js'),
    import('./sqlite/import.js'),
  ]);
  const file = (databaseUrl: string) => sqliteFileOf(databaseUrl)!;
  return {
    snapshot: (databaseUrl, _direct, work) => sqliteSnapshot(file(databaseUrl), work),
    load: (databaseUrl, _direct, records) => sqliteLoad(file(databaseUrl), records),
  };
}
