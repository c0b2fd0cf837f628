// PostgreSQL schema migrations, applied in order, each in its own transaction, recorded in schema_migrations.
// They mirror sqlite-migrations.ts: same tables, same keys, same version numbers.

export interface PostgresMigration {
  version: number;
  description: string;
  sql: string;
}

export const postgresMigrations: readonly PostgresMigration[] = [
  {
    version: 1,
    description: 'plants owned by principals, and hashed bearer tokens',
    sql: `
      CREATE TABLE plants (
        owner TEXT NOT NULL,
        id BIGINT NOT NULL,
        name TEXT NOT NULL,
        tag TEXT,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        PRIMARY KEY (owner, id)
      );
      CREATE TABLE tokens (
        id TEXT PRIMARY KEY,
        subject TEXT NOT NULL,
        scopes TEXT NOT NULL,
        secret_hash BYTEA NOT NULL UNIQUE,
        created_at TIMESTAMPTZ NOT NULL,
        expires_at TIMESTAMPTZ,
        revoked_at TIMESTAMPTZ
      );`,
  },
];
