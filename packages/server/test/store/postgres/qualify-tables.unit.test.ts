// Behind a transaction pooler no session keeps a search_path, so the PostgreSQL store names its tables with their
// schema: every table reference is qualified, and a column that shares a table's name is left alone.
import { describe, expect, it } from 'vitest';
import { qualifyTables } from '../../../src/store/postgres/identifier.js';

describe('qualifyTables', () => {
  it('qualifies the tables a statement reads and writes, quoting the schema, and nothing else', () => {
    const sql = `WITH kept AS (INSERT INTO idempotency_keys AS k (owner, key) VALUES ($1, $2) RETURNING owner)
      UPDATE owner_versions SET idempotency_keys = idempotency_keys + 1 FROM kept
      WHERE owner IN (SELECT owner FROM plants p JOIN tokens t ON t.subject = p.owner) FOR UPDATE OF s`;
    expect(qualifyTables(sql, 'Case_1')).toBe(
      `WITH kept AS (INSERT INTO "Case_1".idempotency_keys AS k (owner, key) VALUES ($1, $2) RETURNING owner)
      UPDATE "Case_1".owner_versions SET idempotency_keys = idempotency_keys + 1 FROM kept
      WHERE owner IN (SELECT owner FROM "Case_1".plants p JOIN "Case_1".tokens t ON t.subject = p.owner) FOR UPDATE OF s`,
    );
  });

  it('leaves a reference that names its schema already, and table-like prefixes of other names', () => {
    expect(qualifyTables('SELECT 1 FROM plants_archive, x.plants', 's')).toBe('SELECT 1 FROM plants_archive, x.plants');
    expect(qualifyTables('CREATE TABLE IF NOT EXISTS schema_migrations (v INT)', 's')).toBe(
      'CREATE TABLE IF NOT EXISTS schema_migrations (v INT)',
    );
  });
});
