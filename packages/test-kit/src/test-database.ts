// Test support: which database the suite runs against. PLANT_STORE_TEST_DATABASE=postgres runs it on the machine's
// PostgreSQL, each test app in a schema of its own (dropped afterwards) so runs never collide; sqlite is the default.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

export const TEST_DATABASE = process.env.PLANT_STORE_TEST_DATABASE === 'postgres' ? 'postgres' : 'sqlite';
export const POSTGRES_URL = process.env.PLANT_STORE_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface TestDatabase {
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
  kind: 'sqlite' | 'postgres' = TEST_DATABASE,
  { schemaPrefix = 'test_' }: TestDatabaseOptions = {},
): TestDatabase {
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
