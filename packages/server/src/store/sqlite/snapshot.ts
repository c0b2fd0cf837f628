// `plant-store export` on SQLite: every table read in one read transaction on a connection of its own, so the
// archive is the file's state at one commit while the service goes on writing (WAL: readers never block writers).
// Rows are iterated, never all held: memory stays flat whatever the size.
import Database from 'better-sqlite3';
import type { ArchiveRecord, Snapshot } from '../archive/format.js';
import { deliveryRecord, keyRecord, plantRecord, type Row, subscriptionRecord, tokenRecord } from '../archive/rows.js';
import { IDEMPOTENCY_TTL_MS } from '../store.js';

const BATCH = 2_000;

/** Each table's query and how a row becomes a record, in the archive's order. */
const TABLES: readonly { sql: string; record: (row: Row) => ArchiveRecord }[] = [
  {
    sql: 'SELECT owner, version FROM owner_versions WHERE version <> 0 ORDER BY owner',
    record: (row) => ({ kind: 'owner', owner: row.owner as string, version: String(row.version) }),
  },
  {
    sql: 'SELECT owner, id, name, tag, created_at FROM plants ORDER BY owner, id',
    record: plantRecord,
  },
  { sql: 'SELECT * FROM tokens ORDER BY created_at, id', record: tokenRecord },
  { sql: 'SELECT * FROM webhook_subscriptions ORDER BY created_at, id', record: subscriptionRecord },
  {
    sql: "SELECT * FROM webhook_deliveries WHERE status = 'pending' ORDER BY id",
    record: deliveryRecord,
  },
  {
    sql: 'SELECT * FROM idempotency_keys WHERE created_at > @keptSince ORDER BY owner, created_at',
    record: keyRecord,
  },
];

export async function sqliteSnapshot(file: string, work: (snapshot: Snapshot) => Promise<void>): Promise<void> {
  const db = new Database(file, { fileMustExist: true });
  db.pragma('busy_timeout = 1000');
  try {
    db.exec('BEGIN');
    // The first read starts the snapshot: every later statement of the transaction sees the same commit.
    const keptSince = Date.now() - IDEMPOTENCY_TTL_MS;
    const total = db
      .prepare(
        `SELECT (SELECT count(*) FROM owner_versions WHERE version <> 0) + (SELECT count(*) FROM plants)
           + (SELECT count(*) FROM tokens) + (SELECT count(*) FROM webhook_subscriptions)
           + (SELECT count(*) FROM webhook_deliveries WHERE status = 'pending')
           + (SELECT count(*) FROM idempotency_keys WHERE created_at > ?)`,
      )
      .pluck()
      .get(keptSince) as number;
    await work({
      total,
      async *batches() {
        for (const { sql, record } of TABLES) {
          const statement = db.prepare(sql).safeIntegers(true);
          const rows = (
            sql.includes('@keptSince') ? statement.iterate({ keptSince }) : statement.iterate()
          ) as IterableIterator<Row>;
          let batch: ArchiveRecord[] = [];
          try {
            for (const row of rows) {
              batch.push(record(row));
              if (batch.length === BATCH) {
                yield batch;
                batch = [];
              }
            }
          } finally {
            rows.return?.();
          }
          if (batch.length > 0) yield batch;
        }
      },
    });
    db.exec('COMMIT');
  } finally {
    db.close();
  }
}
