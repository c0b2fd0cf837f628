// PostgreSQL schema migrations, applied in order, each in its own transaction, recorded in schema_migrations.
// They mirror ../sqlite/migrations.ts: same tables, same keys, same version numbers.

import type { Migration } from '../migration.js';

export const postgresMigrations: readonly Migration[] = [
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
        previous_secret_until BIGINT,
        enabled BOOLEAN NOT NULL DEFAULT true,
        disabled_reason TEXT,
        created_at BIGINT NOT NULL
      );
      CREATE TABLE webhook_deliveries (
        id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        subscription_id TEXT NOT NULL REFERENCES webhook_subscriptions (id) ON DELETE CASCADE,
        event_id TEXT NOT NULL,
        payload TEXT NOT NULL,
        status TEXT NOT NULL DEFAULT 'pending',
        attempts INTEGER NOT NULL DEFAULT 0,
        created_at BIGINT NOT NULL,
        next_attempt_at BIGINT NOT NULL,
        last_status INTEGER,
        last_error TEXT,
        finished_at BIGINT
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
      ALTER TABLE webhook_subscriptions ADD COLUMN circuit_open_until BIGINT;
      ALTER TABLE webhook_subscriptions ADD COLUMN circuit_opens INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE webhook_deliveries ADD COLUMN leased_until BIGINT;
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
        version BIGINT NOT NULL,
        idempotency_keys INTEGER NOT NULL DEFAULT 0
      );
      CREATE INDEX owner_versions_over_keys ON owner_versions (idempotency_keys);
      CREATE TABLE idempotency_keys (
        owner TEXT NOT NULL,
        key TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        status INTEGER NOT NULL,
        body TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        PRIMARY KEY (owner, key)
      );
      CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);
      CREATE INDEX idempotency_keys_owner_created ON idempotency_keys (owner, created_at);`,
  },
];
