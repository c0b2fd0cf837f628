// The webhook outbox on PostgreSQL: the plant and its deliveries are inserted by one statement (so one transaction),
// workers on every instance lease due deliveries with FOR UPDATE SKIP LOCKED, and settle them after each attempt.
import type pg from 'pg';
import {
  type DeliveryRow,
  leaseRoom,
  newPlantEvent,
  QueuedSignal,
  type SubscriptionRow,
  settlement,
  signingSecrets,
  toDelivery,
  toSubscription,
} from '../outbox/event.js';
import { type ClaimedDelivery, IDEMPOTENCY_TTL_MS, type WebhookRepository } from '../store.js';
import { type BatchResult, type BatchRow, rowKey } from './create-batch.js';
import { TRIM_OLDEST_KEYS } from './idempotency-bound.js';

type Query = <Row extends pg.QueryResultRow>(text: string, values?: unknown[]) => Promise<pg.QueryResult<Row>>;

export interface PostgresOutbox {
  /**
   * Inserts a batch of plants and, for each one that was new, one delivery per matching subscription, in one
   * statement: plants and their events commit together or not at all (the group commit of create-batch.ts),
   * and the other instances are told of the new plants at commit. Resolves with the `owner\u0000id` keys inserted.
   */
  createBatchWithEvents(rows: BatchRow[], channel: string, notifyPrefix: string): Promise<BatchResult>;
  readonly repository: WebhookRepository;
}

// The parts both create statements share, each over `input` ($1-$6) and `inserted`: one delivery per inserted plant and
// matching subscription ($7 the time), one NOTIFY per owner with new plants ($8 the channel, $9 the prefix), and the
// answer's rows for the inserted plants.
const QUEUE_DELIVERIES = `queued AS (
    INSERT INTO webhook_deliveries (subscription_id, event_id, payload, created_at, next_attempt_at)
    SELECT s.id, input.event_id, input.payload, $7, $7
    FROM inserted JOIN input ON input.owner = inserted.owner AND input.id = inserted.id
    JOIN webhook_subscriptions s ON s.enabled AND (s.subject IS NULL OR s.subject = inserted.owner)
    RETURNING 1
  )`;
const NOTIFY_OWNERS = `notified AS (
    SELECT pg_notify($8, $9::text || 'p:' || owner) FROM (SELECT DISTINCT owner FROM inserted) AS owners
  )`;
const ANSWER_PLANTS = `SELECT 'p' AS kind, owner, id::text AS id, 0 AS status, (SELECT count(*) FROM notified) AS notified,
         (SELECT count(*) FROM queued)::int AS queued
  FROM inserted`;

// The batch insert, the deliveries selected from its RETURNING, the owners' new versions, and one NOTIFY per owner: one
// statement, one snapshot, one transaction. The batch holds each (owner, id) and each (owner, key) once (CreateBatch
// defers repeats), so the joins are one-to-one. A row with an Idempotency-Key first claims the key (an expired answer
// is overwritten; a live one is left alone and the row does nothing), keeping the answer it will get: 409 when the
// owner has the id already, else 200. The plant is inserted only when its key was claimed with 200. An owner's oldest
// keys beyond the bound go in the same statement (idempotency-bound.ts).
const CREATE_BATCH_WITH_EVENTS = `
  WITH input AS (
    SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[],
                         $10::text[], $11::text[], $12::text[], $13::text[], $14::bigint[])
      AS t(owner, id, name, tag, event_id, payload, idem_key, fingerprint, created_body, conflict_body, claimed_at)
  ), claimed AS (
    INSERT INTO idempotency_keys AS k (owner, key, fingerprint, status, body, created_at)
    SELECT owner, idem_key, fingerprint, CASE WHEN taken THEN 409 ELSE 200 END,
           CASE WHEN taken THEN conflict_body ELSE created_body END, claimed_at
    FROM (SELECT input.*, EXISTS (SELECT 1 FROM plants p WHERE p.owner = input.owner AND p.id = input.id) AS taken
          FROM input WHERE idem_key IS NOT NULL) AS keyed
    ON CONFLICT (owner, key) DO UPDATE SET fingerprint = excluded.fingerprint, status = excluded.status,
      body = excluded.body, created_at = excluded.created_at
      WHERE k.created_at <= excluded.created_at - ${IDEMPOTENCY_TTL_MS}
    RETURNING owner, key, status, (xmax <> 0) AS reused
  ), ${TRIM_OLDEST_KEYS}, inserted AS (
    INSERT INTO plants (owner, id, name, tag) SELECT owner, id, name, tag FROM input
    WHERE idem_key IS NULL
       OR EXISTS (SELECT 1 FROM claimed c WHERE c.owner = input.owner AND c.key = input.idem_key AND c.status = 200)
    ON CONFLICT (owner, id) DO NOTHING
    RETURNING owner, id
  ), ${QUEUE_DELIVERIES}, versions AS (
    INSERT INTO owner_versions AS v (owner, version, idempotency_keys)
    SELECT owner, sum(changed), sum(keys) FROM (
      SELECT owner, 1 AS changed, 0 AS keys FROM inserted
      UNION ALL SELECT owner, 0, CASE WHEN reused THEN 0 ELSE 1 END FROM claimed
      UNION ALL SELECT owner, 0, -1 FROM trimmed
    ) AS writes GROUP BY owner ORDER BY owner
    ON CONFLICT (owner) DO UPDATE SET version = v.version + excluded.version,
      idempotency_keys = v.idempotency_keys + excluded.idempotency_keys
    RETURNING owner, version
  ), ${NOTIFY_OWNERS}
  ${ANSWER_PLANTS}
  UNION ALL SELECT 'k', owner, key, status, 0, 0 FROM claimed
  UNION ALL SELECT 'v', owner, version::text, 0, 0, 0 FROM versions`;

// The same for a batch without an Idempotency-Key, the common case: the parts that write keys would select nothing
// (no row of input has a key, so claimed and trimmed are empty and every row may insert), and PostgreSQL
// parses and plans the whole statement for every batch (unnamed: a transaction pooler keeps no named statement), so
// they are left out. The deliveries part stays: only this statement's own snapshot knows every subscription, one
// another instance added a moment ago included. Owners, versions and the NOTIFY as above.
const CREATE_BATCH_WITHOUT_KEYS = `
  WITH input AS (
    SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[])
      AS t(owner, id, name, tag, event_id, payload)
  ), inserted AS (
    INSERT INTO plants (owner, id, name, tag) SELECT owner, id, name, tag FROM input
    ON CONFLICT (owner, id) DO NOTHING
    RETURNING owner, id
  ), ${QUEUE_DELIVERIES}, versions AS (
    INSERT INTO owner_versions AS v (owner, version)
    SELECT owner, count(*) FROM inserted GROUP BY owner ORDER BY owner
    ON CONFLICT (owner) DO UPDATE SET version = v.version + excluded.version
    RETURNING owner, version
  ), ${NOTIFY_OWNERS}
  ${ANSWER_PLANTS}
  UNION ALL SELECT 'v', owner, version::text, 0, 0, 0 FROM versions`;

const HAS_DUE = `
  SELECT 1 FROM webhook_subscriptions s
  WHERE s.enabled AND (s.circuit_open_until IS NULL OR s.circuit_open_until <= $1)
    AND EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.subscription_id = s.id AND d.status = 'pending'
                AND d.next_attempt_at <= $1)
    AND (SELECT count(*) FROM webhook_deliveries d WHERE d.subscription_id = s.id AND d.status = 'pending'
         AND d.leased_until > $1) < CASE WHEN s.circuit_open_until IS NULL THEN $2::int ELSE 1 END
  LIMIT 1`;

// The queues with due work whose circuit is not open, locked for this claim (a concurrent claimer waits the few
// milliseconds a claim takes; always in id order, so two claimers never wait for each other in a cycle).
const LOCK_QUEUES = `
  SELECT s.* FROM webhook_subscriptions s
  WHERE s.enabled AND (s.circuit_open_until IS NULL OR s.circuit_open_until <= $1)
    AND EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.subscription_id = s.id AND d.status = 'pending'
                AND d.next_attempt_at <= $1)
  ORDER BY s.id
  FOR UPDATE OF s`;

// Per locked queue ($2 ids, $3 caps): its room (cap minus live leases), its first due deliveries up to that room, and
// the queues' turns interleaved up to $5 in all; leased until $4. The status and due time are checked again by the
// UPDATE itself, so a delivery settled meanwhile (a lease that ran out while its holder was still at work) is left.
const CLAIM = `
  WITH queue AS (
    SELECT q.id, q.cap - (SELECT count(*) FROM webhook_deliveries d
                          WHERE d.subscription_id = q.id AND d.status = 'pending' AND d.leased_until > $1) AS room
    FROM unnest($2::text[], $3::int[]) AS q(id, cap)
  ), picked AS (
    SELECT due.id FROM queue CROSS JOIN LATERAL (
      SELECT d.id, d.next_attempt_at, row_number() OVER (ORDER BY d.next_attempt_at, d.id) AS turn
      FROM webhook_deliveries d
      WHERE d.subscription_id = queue.id AND d.status = 'pending' AND d.next_attempt_at <= $1
      ORDER BY d.next_attempt_at, d.id LIMIT greatest(queue.room, 0)
    ) AS due
    ORDER BY due.turn, due.next_attempt_at LIMIT $5
  )
  UPDATE webhook_deliveries d SET next_attempt_at = $4, leased_until = $4
  FROM picked WHERE d.id = picked.id AND d.status = 'pending' AND d.next_attempt_at <= $1
  RETURNING d.id, d.subscription_id, d.event_id, d.payload, d.attempts, d.created_at`;

/** Runs `work` in one transaction on one pooled connection (committed if it resolves, rolled back if it throws). */
export type Transaction = <T>(work: (query: Query) => Promise<T>) => Promise<T>;

export function createPostgresOutbox(query: Query, transaction: Transaction): PostgresOutbox {
  const signal = new QueuedSignal();

  const repository: WebhookRepository = {
    async addSubscription({ id, url, subject, secret }) {
      await query(
        'INSERT INTO webhook_subscriptions (id, url, subject, secret, created_at) VALUES ($1, $2, $3, $4, $5)',
        [id, url, subject, secret, Date.now()],
      );
    },
    async listSubscriptions() {
      const result = await query<SubscriptionRow>('SELECT * FROM webhook_subscriptions ORDER BY created_at, id');
      return result.rows.map(toSubscription);
    },
    async removeSubscription(id) {
      // The deliveries go with it (ON DELETE CASCADE).
      const result = await query('DELETE FROM webhook_subscriptions WHERE id = $1', [id]);
      return result.rowCount === 1;
    },
    async rotateSecret(id, secret, previousUntil) {
      const result = await query(
        `UPDATE webhook_subscriptions SET previous_secret = secret, previous_secret_until = $2, secret = $3
         WHERE id = $1`,
        [id, previousUntil.getTime(), secret],
      );
      return result.rowCount === 1;
    },
    async enableSubscription(id) {
      const result = await query(
        `UPDATE webhook_subscriptions SET enabled = true, disabled_reason = NULL, failure_streak = 0,
           circuit_open_until = NULL, circuit_opens = 0 WHERE id = $1`,
        [id],
      );
      if (result.rowCount === 1) signal.notify();
      return result.rowCount === 1;
    },
    async hasDue(now, perSubscription) {
      // From the subscriptions (few) through the per-subscription indexes: an open circuit's backlog is never scanned.
      const result = await query(HAS_DUE, [now, perSubscription]);
      return result.rowCount === 1;
    },
    async claimDue(now, leaseUntil, limit, perSubscription) {
      return transaction(async (run) => {
        // Locking the subscriptions first (one claimer per queue at a time) makes counting a queue's leases and
        // leasing more atomic across instances: the next statement's snapshot sees every lease committed by the
        // claimer that held the lock before.
        const locked = await run<SubscriptionRow>(LOCK_QUEUES, [now]);
        if (locked.rows.length === 0) return [];
        const claimed = await run<DeliveryRow & { payload: string }>(CLAIM, [
          now,
          locked.rows.map((row) => row.id),
          locked.rows.map((row) => leaseRoom(row.circuit_open_until, 0, perSubscription, now)),
          leaseUntil,
          limit,
        ]);
        const byId = new Map(locked.rows.map((row) => [row.id, row]));
        return claimed.rows
          .map((row): ClaimedDelivery => {
            const found = byId.get(row.subscription_id)!;
            return {
              id: Number(row.id),
              eventId: row.event_id,
              payload: row.payload,
              attempts: row.attempts,
              createdAt: Number(row.created_at),
              subscription: { id: found.id, url: found.url, secrets: signingSecrets(found, now) },
            };
          })
          .sort((a, b) => a.id - b.id);
      });
    },
    async settle(id, outcome, now, circuit) {
      if (outcome.kind === 'released') {
        await query(
          `UPDATE webhook_deliveries SET next_attempt_at = $2, leased_until = NULL WHERE id = $1 AND status = 'pending'`,
          [id, now],
        );
        return;
      }
      const row = settlement(outcome, now);
      const values: unknown[] = [id, row.status, row.nextAttemptAt, row.lastStatus, row.lastError, row.finishedAt];
      const update = `UPDATE webhook_deliveries SET status = $2, attempts = attempts + 1, next_attempt_at = $3,
                        last_status = $4, last_error = $5, finished_at = $6, leased_until = NULL WHERE id = $1`;
      const parts: string[] = [];
      if (outcome.kind === 'failed' && outcome.disableSubscription) {
        // 410 Gone: this delivery fails, the subscription is disabled and its pending deliveries fail with it.
        values.push(outcome.disableSubscription);
        const reason = `$${values.length}`;
        parts.push(
          `disabled AS (UPDATE webhook_subscriptions SET enabled = false, disabled_reason = ${reason}
                        WHERE id = (SELECT subscription_id FROM settled))`,
          `failed AS (UPDATE webhook_deliveries SET status = 'failed', last_error = 'subscription disabled: ' || ${reason},
                        finished_at = $6, leased_until = NULL
                      WHERE status = 'pending' AND id <> $1 AND subscription_id = (SELECT subscription_id FROM settled))`,
        );
      }
      if (circuit?.kind === 'answered') {
        // Only a subscription that had failed is written: the normal case leaves its row alone.
        parts.push(
          `healed AS (UPDATE webhook_subscriptions SET failure_streak = 0, circuit_open_until = NULL, circuit_opens = 0
                      WHERE id = (SELECT subscription_id FROM settled)
                        AND (failure_streak <> 0 OR circuit_open_until IS NOT NULL))`,
        );
      } else if (circuit?.kind === 'failed') {
        values.push(now, circuit.failures, circuit.openMs, circuit.maxOpenMs);
        const [at, failures, openMs, maxOpenMs] = [0, 1, 2, 3].map((i) => `$${values.length - 3 + i}`);
        const stays = `(circuit_open_until IS NOT NULL AND circuit_open_until > ${at}::bigint)
                         OR failure_streak + 1 < ${failures}::int`;
        parts.push(
          `failing AS (UPDATE webhook_subscriptions SET failure_streak = failure_streak + 1,
                         circuit_open_until = CASE WHEN ${stays} THEN circuit_open_until
                           ELSE ${at}::bigint + least(${maxOpenMs}::bigint,
                                  ${openMs}::bigint * (1::bigint << least(circuit_opens, 20))) END,
                         circuit_opens = CASE WHEN ${stays} THEN circuit_opens ELSE circuit_opens + 1 END
                       WHERE id = (SELECT subscription_id FROM settled))`,
        );
      }
      if (parts.length === 0) {
        await query(update, values);
        return;
      }
      await query(`WITH settled AS (${update} RETURNING subscription_id), ${parts.join(', ')} SELECT 1`, values);
    },
    async expire(createdBefore, now) {
      const result = await query(
        `UPDATE webhook_deliveries SET status = 'failed', finished_at = $2,
           last_error = coalesce(last_error || '; ', '') || 'retry period over before the next attempt'
         WHERE status = 'pending' AND created_at < $1 AND (leased_until IS NULL OR leased_until <= $2)`,
        [createdBefore, now],
      );
      return result.rowCount ?? 0;
    },
    async queues(now) {
      const result = await query<{
        id: string;
        circuit_open_until: string | null;
        pending: number;
        oldest: string | null;
        leased: number;
      }>(
        `SELECT s.id, s.circuit_open_until, count(d.id)::int AS pending, min(d.created_at) AS oldest,
           (count(*) FILTER (WHERE d.leased_until > $1))::int AS leased
         FROM webhook_subscriptions s LEFT JOIN webhook_deliveries d ON d.subscription_id = s.id AND d.status = 'pending'
         GROUP BY s.id ORDER BY s.id`,
        [now],
      );
      return result.rows.map((row) => ({
        subscriptionId: row.id,
        pending: row.pending,
        leased: row.leased,
        oldestCreatedAt: row.oldest === null ? null : Number(row.oldest),
        circuitOpenUntil: row.circuit_open_until === null ? null : Number(row.circuit_open_until),
      }));
    },
    async listDeliveries({ failedOnly, limit }) {
      const result = await query<DeliveryRow>(
        `SELECT * FROM webhook_deliveries WHERE (NOT $1 OR status = 'failed') ORDER BY id DESC LIMIT $2`,
        [failedOnly, limit],
      );
      return result.rows.map(toDelivery);
    },
    async replay(id, now) {
      // One statement: the pending check and the copy see one snapshot. Two replays at the same moment may still
      // both copy (read committed); the CLI is one operator's tool, and either copy carries the same webhook-id.
      const result = await query<{
        found: boolean;
        enabled: boolean | null;
        pending: string | null;
        copy: string | null;
      }>(
        `WITH found AS (SELECT d.subscription_id, d.event_id, d.payload, s.enabled,
                          (SELECT p.id FROM webhook_deliveries p WHERE p.subscription_id = d.subscription_id
                             AND p.event_id = d.event_id AND p.status = 'pending' ORDER BY p.id LIMIT 1) AS pending
                        FROM webhook_deliveries d
                        LEFT JOIN webhook_subscriptions s ON s.id = d.subscription_id WHERE d.id = $1),
         copy AS (INSERT INTO webhook_deliveries (subscription_id, event_id, payload, created_at, next_attempt_at)
                  SELECT subscription_id, event_id, payload, $2, $2 FROM found WHERE enabled AND pending IS NULL
                  RETURNING id)
         SELECT EXISTS (SELECT 1 FROM found) AS found, (SELECT enabled FROM found) AS enabled,
                (SELECT pending FROM found)::text AS pending, (SELECT id FROM copy)::text AS copy`,
        [id, now],
      );
      const { found, enabled, pending, copy } = result.rows[0]!;
      if (!found) return 'unknown';
      if (enabled !== true) return 'disabled';
      if (pending !== null) return { pending: Number(pending) };
      signal.notify();
      return Number(copy);
    },
    async prune(before) {
      const result = await query(`DELETE FROM webhook_deliveries WHERE status <> 'pending' AND finished_at < $1`, [
        before,
      ]);
      return result.rowCount ?? 0;
    },
    onQueued: (listener) => signal.on(listener),
  };

  return {
    async createBatchWithEvents(rows, channel, notifyPrefix) {
      const events = rows.map((row) => newPlantEvent(row.plant));
      const values: unknown[] = [
        rows.map((row) => row.owner),
        rows.map((row) => row.plant.id.toString()),
        rows.map((row) => row.plant.name),
        rows.map((row) => row.plant.tag ?? null),
        events.map((event) => event.eventId),
        events.map((event) => event.payload),
        Date.now(),
        channel,
        notifyPrefix,
      ];
      const keyed = rows.some((row) => row.claim);
      if (keyed) {
        values.push(
          rows.map((row) => row.claim?.key ?? null),
          rows.map((row) => row.claim?.fingerprint ?? null),
          rows.map((row) => row.claim?.created ?? null),
          rows.map((row) => row.claim?.conflict ?? null),
          rows.map((row) => row.claim?.now ?? null),
        );
      }
      const result = await query<{ kind: 'p' | 'k' | 'v'; owner: string; id: string; status: number; queued: number }>(
        keyed ? CREATE_BATCH_WITH_EVENTS : CREATE_BATCH_WITHOUT_KEYS,
        values,
      );
      const inserted = new Set<string>();
      const claimed = new Map<string, number>();
      const versions = new Map<string, string>();
      for (const row of result.rows) {
        if (row.kind === 'p') inserted.add(rowKey(row.owner, row.id));
        else if (row.kind === 'k') claimed.set(rowKey(row.owner, row.id), row.status);
        else versions.set(row.owner, row.id);
      }
      if (result.rows.some((row) => row.queued > 0)) signal.notify();
      return { inserted, claimed, versions };
    },
    repository,
  };
}
