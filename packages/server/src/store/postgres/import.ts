// `plant-store import` on PostgreSQL: one transaction on a connection of its own, the tables locked against writes
// (reads go on), rows inserted in batches of arrays (INSERT ... SELECT FROM unnest: one statement a few thousand
// rows), committed only once the archive's trailer checked out. A write like any other: every instance's read
// barrier sees the owners' new versions, and the commit's NOTIFY empties their token caches.
import { randomBytes } from 'node:crypto';
import {
  ArchiveError,
  type ArchiveHeader,
  type ArchiveRecord,
  IMPORT_TABLES,
  notEmpty,
  type ReadRecord,
} from '../archive/format.js';
import { deliveryChecker, repeated } from '../archive/load.js';
import { StoreUnavailableError } from '../store.js';
import { openArchiveSession } from './archive-session.js';
import { channelFor, encodeChange } from './change-feed.js';

const BATCH = 5_000;

type Kind = ArchiveRecord['kind'];
type Of<K extends Kind> = ArchiveRecord & { kind: K };

/** Each kind's insert from arrays (one per column, in order), the columns' values, and the unique key it may hit. */
const INSERTS: {
  [K in Kind]: { sql: string; columns: (record: Of<K>) => unknown[]; keys: (record: Of<K>) => string[] };
} = {
  owner: {
    sql: 'INSERT INTO owner_versions (owner, version) SELECT * FROM unnest($1::text[], $2::bigint[])',
    columns: (r) => [r.owner, r.version],
    keys: (r) => [`(${r.owner})`],
  },
  plant: {
    sql: `INSERT INTO plants (owner, id, name, tag, created_at)
            SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::timestamptz[])`,
    columns: (r) => [r.owner, r.id, r.name, r.tag, r.createdAt],
    keys: (r) => [`(${r.owner}, ${r.id})`],
  },
  token: {
    sql: `INSERT INTO tokens (id, subject, scopes, secret_hash, created_at, expires_at, revoked_at)
            SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bytea[], $5::timestamptz[],
              $6::timestamptz[], $7::timestamptz[])`,
    columns: (r) => [
      r.id,
      r.subject,
      r.scopes.join(','),
      `\\x${Buffer.from(r.secretHash, 'base64').toString('hex')}`,
      r.createdAt,
      r.expiresAt,
      r.revokedAt,
    ],
    keys: (r) => [`(${r.id})`, `(\\x${Buffer.from(r.secretHash, 'base64').toString('hex')})`],
  },
  subscription: {
    sql: `INSERT INTO webhook_subscriptions (id, url, subject, secret, previous_secret, previous_secret_until, enabled,
              disabled_reason, created_at, failure_streak, circuit_open_until, circuit_opens)
            SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[],
              $7::boolean[], $8::text[], $9::bigint[], $10::int[], $11::bigint[], $12::int[])`,
    columns: (r) => [
      r.id,
      r.url,
      r.subject,
      r.secret,
      r.previousSecret,
      r.previousSecretUntil,
      r.enabled,
      r.disabledReason,
      r.createdAt,
      r.failureStreak,
      r.circuitOpenUntil,
      r.circuitOpens,
    ],
    keys: (r) => [`(${r.id})`],
  },
  delivery: {
    sql: `INSERT INTO webhook_deliveries (subscription_id, event_id, payload, attempts, created_at, next_attempt_at,
              last_status, last_error)
            SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::int[], $5::bigint[], $6::bigint[],
              $7::int[], $8::text[])`,
    columns: (r) => [
      r.subscriptionId,
      r.eventId,
      r.payload,
      r.attempts,
      r.createdAt,
      r.nextAttemptAt,
      r.lastStatus,
      r.lastError,
    ],
    keys: () => [],
  },
  'idempotency-key': {
    sql: `INSERT INTO idempotency_keys (owner, key, fingerprint, status, body, created_at)
            SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::int[], $5::text[], $6::bigint[])`,
    columns: (r) => [r.owner, r.key, r.fingerprint, r.status, r.body, r.createdAt],
    keys: (r) => [`(${r.owner}, ${r.key})`],
  },
};

/** An error that means the connection went away, not a bad row. */
function lost(error: unknown): boolean {
  const { code, message } = error as { code?: string; message?: string };
  return (
    (code !== undefined && /^(08|57P0|53)|^E[A-Z]+$/.test(code)) ||
    /Connection terminated|connection error|not queryable/i.test(message ?? '')
  );
}

export async function postgresLoad(
  databaseUrl: string,
  directUrl: string | null,
  records: AsyncIterable<ArchiveHeader | ReadRecord[]>,
): Promise<void> {
  const { client, schema, begin } = await openArchiveSession(databaseUrl, directUrl, 'plant-store import');
  let batch: ReadRecord[] = [];
  let at = 0;
  const flush = async () => {
    const [first] = batch;
    if (!first) return;
    const insert = INSERTS[first.record.kind];
    const columnsOf = insert.columns as (record: ArchiveRecord) => unknown[];
    const columns: unknown[][] = columnsOf(first.record).map(() => []);
    for (const { record } of batch) {
      for (const [column, value] of columnsOf(record).entries()) columns[column]!.push(value);
    }
    try {
      await client.query(insert.sql, columns);
    } catch (error) {
      if ((error as { code?: string }).code !== '23505') throw error;
      // The record that repeats a key: the first to repeat one in the batch, else the one the server names.
      const seen = new Set<string>();
      const keysOf = insert.keys as (record: ArchiveRecord) => string[];
      const detail = (error as { detail?: string }).detail ?? '';
      const found =
        batch.find(({ record }) => keysOf(record).some((key) => seen.has(key) || !seen.add(key))) ??
        batch.find(({ record }) => keysOf(record).some((key) => detail.includes(`=${key} `))) ??
        first;
      throw new ArchiveError(found.line, repeated(found.record));
    }
    batch = [];
  };
  try {
    await begin('BEGIN');
    // Writes wait for the import (the service refuses them after its lock timeout: put it in READ_ONLY first).
    await client.query(
      `LOCK TABLE ${IMPORT_TABLES.map(([table]) => table).join(', ')}, owner_versions IN EXCLUSIVE MODE`,
    );
    const counts = await client.query<Record<string, string>>(
      `SELECT ${IMPORT_TABLES.map(([table]) => `(SELECT count(*) FROM ${table})::int AS ${table}`).join(', ')}`,
    );
    const refusal = notEmpty(IMPORT_TABLES.map(([table]) => Number(counts.rows[0]![table])));
    if (refusal) throw refusal;
    const checkDelivery = deliveryChecker();
    for await (const reads of records) {
      if (!Array.isArray(reads)) continue; // the header
      for (const read of reads) {
        checkDelivery(read);
        if (batch.length === BATCH || (batch[0] && batch[0].record.kind !== read.record.kind)) await flush();
        batch.push(read);
        at = read.line;
      }
    }
    await flush();
    // Every owner with plants has a version above 0; each owner's count of kept keys is what it holds now.
    await client.query(
      `INSERT INTO owner_versions AS v (owner, version) SELECT DISTINCT owner, 1 FROM plants
         ON CONFLICT (owner) DO UPDATE SET version = greatest(v.version, 1)`,
    );
    await client.query(
      `INSERT INTO owner_versions AS v (owner, version, idempotency_keys)
         SELECT owner, 0, count(*) FROM idempotency_keys GROUP BY owner
         ON CONFLICT (owner) DO UPDATE SET idempotency_keys = excluded.idempotency_keys`,
    );
    await client.query('SELECT pg_notify($1, $2)', [
      channelFor(schema),
      encodeChange({ kind: 'tokens' }, randomBytes(6).toString('hex')),
    ]);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    if (error instanceof ArchiveError || !lost(error)) throw error;
    throw new StoreUnavailableError(`the PostgreSQL connection was lost (the last batch sent ended at line ${at})`, {
      cause: error,
    });
  } finally {
    await client.end().catch(() => {});
  }
}
