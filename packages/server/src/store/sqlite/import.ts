// `plant-store import` on SQLite: prepared inserts in one IMMEDIATE transaction on a connection of its own, committed
// only once the archive's trailer checked out. The import writes like any other writer on the file: the owner
// versions it inserts feed the change feed (migration 7's triggers), so every process serving the file forgets the
// pages it cached before (its change log holds no entry for those versions: see change-log.ts).
import {
  ArchiveError,
  type ArchiveHeader,
  type ArchiveRecord,
  IMPORT_TABLES,
  notEmpty,
  type ReadRecord,
} from '../archive/format.js';
import { deliveryChecker, repeated } from '../archive/load.js';
import { asStoreError } from './group-commit.js';
import { openSqliteDatabase } from './sqlite-store.js';

/** Each kind's insert and its values, as better-sqlite3 binds them. */
const INSERTS: { [K in ArchiveRecord['kind']]: { sql: string; values: (record: never) => unknown[] } } = {
  owner: {
    sql: 'INSERT INTO owner_versions (owner, version) VALUES (?, ?)',
    values: (record: ArchiveRecord & { kind: 'owner' }) => [record.owner, BigInt(record.version)],
  },
  plant: {
    sql: 'INSERT INTO plants (owner, id, name, tag, created_at) VALUES (?, ?, ?, ?, ?)',
    values: (record: ArchiveRecord & { kind: 'plant' }) => [
      record.owner,
      BigInt(record.id),
      record.name,
      record.tag,
      record.createdAt,
    ],
  },
  token: {
    sql: `INSERT INTO tokens (id, subject, scopes, secret_hash, created_at, expires_at, revoked_at)
          VALUES (?, ?, ?, ?, ?, ?, ?)`,
    // Dates as the store writes them (toISOString), so they sort alike whichever engine wrote the archive.
    values: (record: ArchiveRecord & { kind: 'token' }) => [
      record.id,
      record.subject,
      record.scopes.join(','),
      Buffer.from(record.secretHash, 'base64'),
      iso(record.createdAt),
      record.expiresAt === null ? null : iso(record.expiresAt),
      record.revokedAt === null ? null : iso(record.revokedAt),
    ],
  },
  subscription: {
    sql: `INSERT INTO webhook_subscriptions (id, url, subject, secret, previous_secret, previous_secret_until, enabled,
            disabled_reason, created_at, failure_streak, circuit_open_until, circuit_opens)
          VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    values: (record: ArchiveRecord & { kind: 'subscription' }) => [
      record.id,
      record.url,
      record.subject,
      record.secret,
      record.previousSecret,
      record.previousSecretUntil,
      record.enabled ? 1 : 0,
      record.disabledReason,
      record.createdAt,
      record.failureStreak,
      record.circuitOpenUntil,
      record.circuitOpens,
    ],
  },
  delivery: {
    sql: `INSERT INTO webhook_deliveries (subscription_id, event_id, payload, attempts, created_at, next_attempt_at,
            last_status, last_error)
          VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    values: (record: ArchiveRecord & { kind: 'delivery' }) => [
      record.subscriptionId,
      record.eventId,
      record.payload,
      record.attempts,
      record.createdAt,
      record.nextAttemptAt,
      record.lastStatus,
      record.lastError,
    ],
  },
  'idempotency-key': {
    sql: `INSERT INTO idempotency_keys (owner, key, fingerprint, status, body, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
    values: (record: ArchiveRecord & { kind: 'idempotency-key' }) => [
      record.owner,
      record.key,
      record.fingerprint,
      record.status,
      record.body,
      record.createdAt,
    ],
  },
};

const iso = (time: string) => new Date(time).toISOString();

export async function sqliteLoad(file: string, records: AsyncIterable<ArchiveHeader | ReadRecord[]>): Promise<void> {
  const db = openSqliteDatabase(file);
  try {
    db.exec('BEGIN IMMEDIATE');
    try {
      const refusal = notEmpty(
        IMPORT_TABLES.map(([table]) => db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number),
      );
      if (refusal) throw refusal;
      const statements = new Map(Object.entries(INSERTS).map(([kind, { sql }]) => [kind, db.prepare(sql)]));
      const checkDelivery = deliveryChecker();
      for await (const batch of records) {
        if (!Array.isArray(batch)) continue; // the header
        for (const read of batch) {
          const { line, record } = read;
          checkDelivery(read);
          try {
            statements.get(record.kind)!.run(...INSERTS[record.kind].values(record as never));
          } catch (error) {
            if ((error as { code?: string }).code?.startsWith('SQLITE_CONSTRAINT')) {
              throw new ArchiveError(line, repeated(record));
            }
            throw asStoreError(error);
          }
        }
      }
      // Every owner with plants has a version above 0 (the change feed carries only those); each owner's count of
      // kept keys is what it holds now.
      db.exec(`INSERT INTO owner_versions (owner, version) SELECT DISTINCT owner, 1 FROM plants WHERE true
                 ON CONFLICT (owner) DO UPDATE SET version = max(version, 1);
               INSERT INTO owner_versions (owner, version, idempotency_keys)
                 SELECT owner, 0, count(*) FROM idempotency_keys GROUP BY owner
                 ON CONFLICT (owner) DO UPDATE SET idempotency_keys = excluded.idempotency_keys;
               UPDATE token_generation SET generation = generation + 1;`);
      try {
        db.exec('COMMIT');
      } catch (error) {
        throw asStoreError(error);
      }
    } catch (error) {
      if (db.inTransaction) db.exec('ROLLBACK');
      throw error;
    }
  } finally {
    db.close();
  }
}
