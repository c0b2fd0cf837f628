// SQLite schema migrations, applied in order, each in its own transaction, recorded in schema_migrations.
// ../postgres/migrations.ts mirrors them: same tables, same keys, same version numbers.

import type { Migration } from '../migration.js';

export const sqliteMigrations: readonly Migration[] = [
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
  {
    version: 2,
    description: 'webhook subscriptions and the outbox of their deliveries (times in ms since the epoch)',
    sql: `
      CREATE TABLE webhook_subscriptions (
        id TEXT PRIMARY KEY,
        url TEXT NOT NULL,
        subject TEXT,
        secret TEXT NOT NULL,
        previous_secret TEXT,
        previous_secret_until INTEGER,
        enabled INTEGER NOT NULL DEFAULT 1,
        disabled_reason TEXT,
        created_at INTEGER NOT NULL
      );
      CREATE TABLE webhook_deliveries (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        subscription_id TEXT NOT NULL,
        event_id TEXT NOT NULL,
        payload TEXT NOT NULL,
        status TEXT NOT NULL DEFAULT 'pending',
        attempts INTEGER NOT NULL DEFAULT 0,
        created_at INTEGER NOT NULL,
        next_attempt_at INTEGER NOT NULL,
        last_status INTEGER,
        last_error TEXT,
        finished_at INTEGER
      );
      CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
      CREATE INDEX webhook_deliveries_subscription ON webhook_deliveries (subscription_id);
      CREATE INDEX webhook_deliveries_finished ON webhook_deliveries (finished_at) WHERE status <> 'pending';`,
  },
  {
    version: 3,
    description: 'webhook queues per subscription: leases counted per subscription, and a circuit breaker',
    sql: `
      ALTER TABLE webhook_subscriptions ADD COLUMN failure_streak INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE webhook_subscriptions ADD COLUMN circuit_open_until INTEGER;
      ALTER TABLE webhook_subscriptions ADD COLUMN circuit_opens INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE webhook_deliveries ADD COLUMN leased_until INTEGER;
      CREATE INDEX webhook_deliveries_queue ON webhook_deliveries (subscription_id, next_attempt_at)
        WHERE status = 'pending';
      CREATE INDEX webhook_deliveries_leased ON webhook_deliveries (subscription_id, leased_until)
        WHERE status = 'pending' AND leased_until IS NOT NULL;`,
  },
  {
    version: 4,
    description: 'per-principal data versions (ETag) and the answers kept for Idempotency-Keys (times in ms)',
    sql: `
      CREATE TABLE owner_versions (
        owner TEXT PRIMARY KEY,
        version INTEGER NOT NULL,
        idempotency_keys INTEGER NOT NULL DEFAULT 0
      ) WITHOUT ROWID;
      CREATE INDEX owner_versions_over_keys ON owner_versions (idempotency_keys);
      CREATE TABLE idempotency_keys (
        owner TEXT NOT NULL,
        key TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        status INTEGER NOT NULL,
        body TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (owner, key)
      ) WITHOUT ROWID;
      CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);
      CREATE INDEX idempotency_keys_owner_created ON idempotency_keys (owner, created_at);`,
  },
  {
    version: 5,
    description: 'the last plant changes of each owner, by version, replayed over cached pages by other processes',
    sql: `
      CREATE TABLE plant_changes (
        owner TEXT NOT NULL,
        slot INTEGER NOT NULL,
        version INTEGER NOT NULL,
        id INTEGER NOT NULL,
        created INTEGER NOT NULL,
        PRIMARY KEY (owner, slot)
      ) WITHOUT ROWID;`,
  },
  {
    version: 6,
    description: 'a generation of the tokens table, moved by every update or delete (revocations), for token caches',
    sql: `
      CREATE TABLE token_generation (only INTEGER PRIMARY KEY CHECK (only = 0), generation INTEGER NOT NULL);
      INSERT INTO token_generation (only, generation) VALUES (0, 0);
      CREATE TRIGGER tokens_updated AFTER UPDATE ON tokens
        BEGIN UPDATE token_generation SET generation = generation + 1; END;
      CREATE TRIGGER tokens_deleted AFTER DELETE ON tokens
        BEGIN UPDATE token_generation SET generation = generation + 1; END;`,
  },
  {
    version: 7,
    description:
      'a feed of every move of an owner version or the tokens generation, in commit order, for other processes caches',
    // Written by triggers, so every writer on the file feeds it (a release older than this one, the CLI, a hand-made
    // UPDATE); each 1024th row drops those more than 16384 behind it.
    sql: `
      CREATE TABLE change_feed (seq INTEGER PRIMARY KEY, owner TEXT, version INTEGER NOT NULL);
      CREATE TRIGGER owner_version_created AFTER INSERT ON owner_versions WHEN NEW.version <> 0
        BEGIN INSERT INTO change_feed (owner, version) VALUES (NEW.owner, NEW.version); END;
      CREATE TRIGGER owner_version_moved AFTER UPDATE OF version ON owner_versions WHEN NEW.version <> OLD.version
        BEGIN INSERT INTO change_feed (owner, version) VALUES (NEW.owner, NEW.version); END;
      CREATE TRIGGER token_generation_moved AFTER UPDATE ON token_generation
        BEGIN INSERT INTO change_feed (owner, version) VALUES (NULL, NEW.generation); END;
      CREATE TRIGGER change_feed_trimmed AFTER INSERT ON change_feed WHEN NEW.seq % 1024 = 0
        BEGIN DELETE FROM change_feed WHERE seq <= NEW.seq - 16384; END;`,
  },
];
