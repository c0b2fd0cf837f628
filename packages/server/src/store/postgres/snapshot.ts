// `plant-store export` on PostgreSQL: every table read in one REPEATABLE READ READ ONLY transaction (one snapshot
// while the service writes on), each through a cursor fetched in batches, so memory stays flat whatever the size.
import type { ArchiveRecord, Snapshot } from '../archive/format.js';
import { deliveryRecord, keyRecord, plantRecord, type Row, subscriptionRecord, tokenRecord } from '../archive/rows.js';
import { IDEMPOTENCY_TTL_MS } from '../store.js';
import { openArchiveSession } from './archive-session.js';

const BATCH = 10_000;

/** Each table's query and how a row becomes a record, in the archive's order; $1 is the oldest kept key's time. */
const TABLES: readonly { sql: string; record: (row: Row) => ArchiveRecord }[] = [
  {
    sql: 'SELECT owner, version::text AS version FROM owner_versions WHERE version <> 0 ORDER BY owner',
    record: (row) => ({ kind: 'owner', owner: row.owner as string, version: row.version as string }),
  },
  {
    // The time as UTC text to the microsecond, as PostgreSQL keeps it (a Date would drop the microseconds). In no
    // order: a sequential scan, not the primary key's walk through the heap (an import takes any order).
    sql: `SELECT owner, id::text AS id, name, tag,
            to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS created_at
          FROM plants`,
    record: plantRecord,
  },
  { sql: 'SELECT * FROM tokens ORDER BY created_at, id', record: tokenRecord },
  { sql: 'SELECT * FROM webhook_subscriptions ORDER BY created_at, id', record: subscriptionRecord },
  { sql: "SELECT * FROM webhook_deliveries WHERE status = 'pending' ORDER BY id", record: deliveryRecord },
  { sql: 'SELECT * FROM idempotency_keys WHERE created_at > $1 ORDER BY owner, created_at', record: keyRecord },
];

export async function postgresSnapshot(
  databaseUrl: string,
  directUrl: string | null,
  work: (snapshot: Snapshot) => Promise<void>,
): Promise<void> {
  const { client, begin } = await openArchiveSession(databaseUrl, directUrl, 'plant-store export');
  try {
    await begin('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const keptSince = Date.now() - IDEMPOTENCY_TTL_MS;
    // The first query takes the snapshot: every later one of the transaction sees the same commits.
    const counted = await client.query<{ total: string }>(
      `SELECT ((SELECT count(*) FROM owner_versions WHERE version <> 0) + (SELECT count(*) FROM plants)
          + (SELECT count(*) FROM tokens) + (SELECT count(*) FROM webhook_subscriptions)
          + (SELECT count(*) FROM webhook_deliveries WHERE status = 'pending')
          + (SELECT count(*) FROM idempotency_keys WHERE created_at > $1))::text AS total`,
      [keptSince],
    );
    await work({
      total: Number(counted.rows[0]!.total),
      async *batches() {
        for (const { sql, record } of TABLES) {
          await client.query(`DECLARE archive NO SCROLL CURSOR FOR ${sql}`, sql.includes('$1') ? [keptSince] : []);
          for (;;) {
            const { rows } = await client.query<Row>(`FETCH FORWARD ${BATCH} FROM archive`);
            if (rows.length > 0) yield rows.map(record);
            if (rows.length < BATCH) break;
          }
          await client.query('CLOSE archive');
        }
      },
    });
    await client.query('COMMIT');
  } finally {
    await client.end().catch(() => {});
  }
}
