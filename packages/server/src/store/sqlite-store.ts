// The embedded SQLite store (better-sqlite3): WAL with synchronous=FULL on every connection, so an answered write
// survives a crash or power cut; ids are 64-bit integers bound and read as bigint, never rounded.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { sqliteMigrations } from './sqlite-migrations.js';
import type { PlantPage, Scope, Store, TokenRecord } from './store.js';

interface TokenRow {
  id: string;
  subject: string;
  scopes: string;
  secret_hash: Buffer;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
}

function toTokenRecord(row: TokenRow): TokenRecord {
  return {
    id: row.id,
    subject: row.subject,
    scopes: row.scopes.split(',').filter(Boolean) as Scope[],
    createdAt: new Date(row.created_at),
    expiresAt: row.expires_at === null ? null : new Date(row.expires_at),
    revokedAt: row.revoked_at === null ? null : new Date(row.revoked_at),
  };
}

/** Opens (creating if needed) the database at `path`, or an in-memory one for ':memory:'. */
export function openSqliteStore(path: string): Store {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  if (path !== ':memory:') db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)');

  // Statements touching tables that migrations create are prepared on first use.
  const cache = new Map<string, Database.Statement>();
  const statement = (sql: string) => {
    let prepared = cache.get(sql);
    if (!prepared) {
      prepared = db.prepare(sql);
      cache.set(sql, prepared);
    }
    return prepared;
  };

  return {
    kind: 'sqlite',
    plants: {
      async create(owner, plant) {
        const result = statement(
          'INSERT INTO plants (owner, id, name, tag) VALUES (?, ?, ?, ?) ON CONFLICT (owner, id) DO NOTHING',
        ).run(owner, plant.id, plant.name, plant.tag ?? null);
        return result.changes === 1;
      },
      async list(owner, { limit, after }): Promise<PlantPage> {
        const rows = (
          after === undefined
            ? statement('SELECT id, name, tag FROM plants WHERE owner = ? ORDER BY id LIMIT ?')
                .safeIntegers(true)
                .all(owner, limit + 1)
            : statement('SELECT id, name, tag FROM plants WHERE owner = ? AND id > ? ORDER BY id LIMIT ?')
                .safeIntegers(true)
                .all(owner, after, limit + 1)
        ) as { id: bigint; name: string; tag: string | null }[];
        const plants = rows
          .slice(0, limit)
          .map((row) =>
            row.tag === null ? { id: row.id, name: row.name } : { id: row.id, name: row.name, tag: row.tag },
          );
        return { plants, hasMore: rows.length > limit };
      },
      async delete(owner, id) {
        return statement('DELETE FROM plants WHERE owner = ? AND id = ?').run(owner, id).changes === 1;
      },
    },
    tokens: {
      async insert(record, secretHash) {
        statement(
          `INSERT INTO tokens (id, subject, scopes, secret_hash, created_at, expires_at, revoked_at)
           VALUES (?, ?, ?, ?, ?, ?, ?)`,
        ).run(
          record.id,
          record.subject,
          record.scopes.join(','),
          secretHash,
          record.createdAt.toISOString(),
          record.expiresAt?.toISOString() ?? null,
          record.revokedAt?.toISOString() ?? null,
        );
      },
      async findByHash(secretHash) {
        const row = statement('SELECT * FROM tokens WHERE secret_hash = ?').get(secretHash) as TokenRow | undefined;
        return row ? { ...toTokenRecord(row), secretHash: row.secret_hash } : undefined;
      },
      async list() {
        return (statement('SELECT * FROM tokens ORDER BY created_at, id').all() as TokenRow[]).map(toTokenRecord);
      },
      async revoke(id, at) {
        const result = statement('UPDATE tokens SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?').run(
          at.toISOString(),
          id,
        );
        return result.changes === 1;
      },
    },
    async migrate() {
      const applied: number[] = [];
      // IMMEDIATE takes the write lock first, so processes starting together apply each migration once.
      const apply = db.transaction(() => {
        const done = new Set(
          (db.prepare('SELECT version FROM schema_migrations').all() as { version: number }[]).map((r) => r.version),
        );
        for (const migration of sqliteMigrations) {
          if (done.has(migration.version)) continue;
          db.exec(migration.sql);
          db.prepare('INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)').run(
            migration.version,
            new Date().toISOString(),
          );
          applied.push(migration.version);
        }
      });
      apply.immediate();
      return applied;
    },
    async ping() {
      db.prepare('SELECT 1').get();
    },
    async close() {
      if (db.open) db.close();
    },
  };
}
