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
  drop(): Promise<void>;
}

/** A fresh, empty database of the kind under test. */
export function createTestDatabase(kind: 'sqlite' | 'postgres' = TEST_DATABASE): TestDatabase {
  if (kind === 'postgres') {
    const schema = `test_${randomBytes(6).toString('hex')}`;
    return {
      url: `${POSTGRES_URL}?schema=${schema}`,
      async drop() {
        const client = new pg.Client({ connectionString: POSTGRES_URL });
        await client.connect();
        await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
        await client.end();
      },
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'plant-store-test-'));
  return {
    url: `sqlite:${join(dir, 'plant-store.db')}`,
    async drop() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
