// Test support: which engine the suite runs against. PLANT_STORE_TEST_DATABASE=postgres runs it on the machine's
// PostgreSQL, each test app in a schema of its own (dropped afterwards) so runs never collide; memory on the memory
// engine (`memory:`, nothing to create or drop); sqlite, a file in a temp folder, is the default.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

export type TestDatabaseKind = 'memory' | 'sqlite' | 'postgres';

const KINDS: readonly string[] = ['memory', 'sqlite', 'postgres'] satisfies TestDatabaseKind[];
const named = process.env.PLANT_STORE_TEST_DATABASE;
if (named !== undefined && named !== '' && !KINDS.includes(named)) {
  // A typo must not run the suite on SQLite while the project's name says otherwise.
  throw new Error(`PLANT_STORE_TEST_DATABASE=${named}: expected one of ${KINDS.join(', ')}`);
}
export const TEST_DATABASE: TestDatabaseKind = (named || 'sqlite') as TestDatabaseKind;
export const POSTGRES_URL = process.env.PLANT_STORE_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface TestDatabase {
  /** The DATABASE_URL (`memory:` for the memory engine: each process that opens it has a store of its own). */
  url: string;
  /** PostgreSQL: the schema of its own. */
  schema?: string;
  /** SQLite: the database file. */
  file?: string;
  drop(): Promise<void>;
}

export interface TestDatabaseOptions {
  /** PostgreSQL: how the schema's name starts (`test_` unless given; capitals are kept, the name is quoted). */
  schemaPrefix?: string;
}

/** A fresh, empty database of the kind under test. */
export function createTestDatabase(
  kind: TestDatabaseKind = TEST_DATABASE,
  { schemaPrefix = 'test_' }: TestDatabaseOptions = {},
): TestDatabase {
  if (kind === 'memory') return { url: 'memory:', drop: async () => {} };
  if (kind === 'postgres') {
    const schema = `${schemaPrefix}${randomBytes(6).toString('hex')}`;
    return {
      url: `${POSTGRES_URL}?schema=${schema}`,
      schema,
      async drop() {
        const client = new pg.Client({ connectionString: POSTGRES_URL });
        await client.connect();
        try {
          // Quoted: unquoted, PostgreSQL folds the name to lower case and a schema named with capitals stays behind.
          await client.query(`DROP SCHEMA IF EXISTS ${client.escapeIdentifier(schema)} CASCADE`);
        } finally {
          await client.end();
        }
      },
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'plant-store-test-'));
  const file = join(dir, 'plant-store.db');
  return {
    url: `sqlite:${file}`,
    file,
    async drop() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
