// Test support: the open, migrate and drop lifecycle of a store under test, on any engine: the memory engine, a SQLite
// file in a temp folder, or a PostgreSQL schema of its own (test-database.ts). One place, so no test does it by hand.
// Also `@plant-store/test-kit/store`: the store registry alone, without the app, for the unit tier.
import type { Store } from '@plant-store/server';
import { openStore } from '@plant-store/server/store';
import { afterAll, beforeAll } from 'vitest';
import {
  createTestDatabase,
  TEST_DATABASE,
  type TestDatabase,
  type TestDatabaseKind,
  type TestDatabaseOptions,
} from './test-database.js';

export type TestStoreKind = TestDatabaseKind;
export type StoreOptions = NonNullable<Parameters<typeof openStore>[1]>;

export interface TestStore {
  readonly kind: TestStoreKind;
  /** The DATABASE_URL of the store (`memory:` for the memory engine). */
  readonly url: string;
  /** The database under it: PostgreSQL's schema, SQLite's file. */
  readonly database: TestDatabase;
  /** The store, opened and migrated. */
  readonly store: Store;
  /** Closes the store and drops its database. */
  close(): Promise<void>;
}

export interface TestStoreOptions extends TestDatabaseOptions {
  /** How the store is opened (pool size, page cache, group commit...). */
  store?: StoreOptions;
}

/** A fresh database of `kind`, its store opened and migrated. */
export async function openTestStore(
  kind: TestStoreKind = TEST_DATABASE,
  options: TestStoreOptions = {},
): Promise<TestStore> {
  const database: TestDatabase = createTestDatabase(kind, options);
  let store: Store;
  try {
    store = await openStore(database.url, options.store);
    await store.migrate();
  } catch (error) {
    await database.drop();
    throw error;
  }
  return {
    kind,
    url: database.url,
    database,
    store,
    async close() {
      try {
        await store.close();
      } finally {
        await database.drop();
      }
    },
  };
}

/**
 * The store for a test file: opened and migrated before its first test, closed and dropped after its last. Read
 * `.store` inside tests and hooks (it is not open yet while the file is collected).
 */
export function useTestStore(kind: TestStoreKind = TEST_DATABASE, options: TestStoreOptions = {}): TestStore {
  let opened: TestStore | undefined;
  beforeAll(async () => {
    opened = await openTestStore(kind, options);
  });
  afterAll(async () => {
    await opened?.close();
    opened = undefined;
  });
  const current = (): TestStore => {
    if (!opened) throw new Error('useTestStore(): the store is open only inside tests and hooks');
    return opened;
  };
  return {
    kind,
    get url() {
      return current().url;
    },
    get database() {
      return current().database;
    },
    get store() {
      return current().store;
    },
    close: () => current().close(),
  };
}
