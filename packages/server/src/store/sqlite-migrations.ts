// SQLite schema migrations, applied in order, each in its own transaction, recorded in schema_migrations.
// postgres-migrations.ts mirrors them: same tables, same keys, same version numbers.

export interface SqliteMigration {
  version: number;
  description: string;
  sql: string;
}

export const sqliteMigrations: readonly SqliteMigration[] = [
  {
    version: 1,
    description: 'plants owned by principals, and hashed bearer tokens',
    sql: `
      CREATE TABLE plants (
        owner TEXT NOT NULL,
        id INTEGER NOT NULL,
        name TEXT NOT NULL,
        tag TEXT,
        created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
        PRIMARY KEY (owner, id)
      ) WITHOUT ROWID;
      CREATE TABLE tokens (
        id TEXT PRIMARY KEY,
        subject TEXT NOT NULL,
        scopes TEXT NOT NULL,
        secret_hash BLOB NOT NULL UNIQUE,
        created_at TEXT NOT NULL,
        expires_at TEXT,
        revoked_at TEXT
      );`,
  },
];
