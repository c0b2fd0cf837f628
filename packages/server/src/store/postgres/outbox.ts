// The webhook outbox on PostgreSQL: the plant and its deliveries are inserted by one statement (so one transaction),
// workers on every instance lease due deliveries with FOR UPDATE SKIP LOCKED, and settle them after each attempt.
import type pg from 'pg';
import {
  type DeliveryRow,
  newPlantEvent,
  QueuedSignal,
  type SubscriptionRow,
  settlement,
  signingSecrets,
  toDelivery,
  toSubscription,
} from '../outbox-event.js';
import type { ClaimedDelivery, StoredPlant, WebhookRepository } from '../store.js';
import { rowKey } from './create-batch.js';

type Query = <Row extends pg.QueryResultRow>(
  text: string,
  values?: unknown[],
  name?: string,
) => Promise<pg.QueryResult<Row>>;

export interface PostgresOutbox {
  /**
   * Inserts a batch of plants and, for each one that was new, one delivery per matching subscription, in one
   * statement: plants and their events commit together or not at all (the group commit of create-batch.ts),
   * and the other instances are told of the new plants at commit. Resolves with the `owner\u0000id` keys inserted.
   */
  createBatchWithEvents(
    rows: { owner: string; plant: StoredPlant }[],
    channel: string,
    notifyPrefix: string,
  ): Promise<Set<string>>;
  readonly repository: WebhookRepository;
}

// The batch insert, the deliveries selected from its RETURNING, and one NOTIFY per owner: one statement, one snapshot,
// one transaction. The batch holds each (owner, id) once (CreateBatch keeps the first), so the join is one-to-one.
const CREATE_BATCH_WITH_EVENTS = `
  WITH input AS (
    SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[])
      AS t(owner, id, name, tag, event_id, payload)
  ), inserted AS (
    INSERT INTO plants (owner, id, name, tag) SELECT owner, id, name, tag FROM input
    ON CONFLICT (owner, id) DO NOTHING
    RETURNING owner, id
  ), queued AS (
    INSERT INTO webhook_deliveries (subscription_id, event_id, payload, created_at, next_attempt_at)
    SELECT s.id, input.event_id, input.payload, $7, $7
    FROM inserted JOIN input ON input.owner = inserted.owner AND input.id = inserted.id
    JOIN webhook_subscriptions s ON s.enabled AND (s.subject IS NULL OR s.subject = inserted.owner)
    RETURNING 1
  ), notified AS (
    SELECT pg_notify($8, $9::text || 'p:' || owner) FROM (SELECT DISTINCT owner FROM inserted) AS owners
  )
  SELECT owner, id::text AS id, (SELECT count(*) FROM notified) AS notified, (SELECT count(*) FROM queued)::int AS queued
  FROM inserted`;

export function createPostgresOutbox(query: Query): PostgresOutbox {
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
    async hasDue(now) {
      const result = await query(
        `SELECT 1 FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= $1 LIMIT 1`,
        [now],
      );
      return result.rowCount === 1;
    },
    async claimDue(now, leaseUntil, limit) {
      // SKIP LOCKED: a row another instance is claiming right now is left to it, so each lease has one holder.
      const claimed = await query<DeliveryRow & { payload: string }>(
        `UPDATE webhook_deliveries d SET next_attempt_at = $2
         FROM (SELECT id FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= $1
               ORDER BY next_attempt_at LIMIT $3 FOR UPDATE SKIP LOCKED) due
         WHERE d.id = due.id
         RETURNING d.id, d.subscription_id, d.event_id, d.payload, d.attempts, d.created_at`,
        [now, leaseUntil, limit],
      );
      if (claimed.rows.length === 0) return [];
      const ids = [...new Set(claimed.rows.map((row) => row.subscription_id))];
      const subscriptions = await query<SubscriptionRow>(
        'SELECT * FROM webhook_subscriptions WHERE id = ANY($1) AND enabled',
        [ids],
      );
      const byId = new Map(subscriptions.rows.map((row) => [row.id, row]));
      return claimed.rows.map((row): ClaimedDelivery => {
        const found = byId.get(row.subscription_id);
        return {
          id: Number(row.id),
          eventId: row.event_id,
          payload: row.payload,
          attempts: row.attempts,
          createdAt: Number(row.created_at),
          subscription: found ? { id: found.id, url: found.url, secrets: signingSecrets(found, now) } : undefined,
        };
      });
    },
    async settle(id, outcome, now) {
      if (outcome.kind === 'released') {
        await query(`UPDATE webhook_deliveries SET next_attempt_at = $2 WHERE id = $1 AND status = 'pending'`, [
          id,
          now,
        ]);
        return;
      }
      const row = settlement(outcome, now);
      const values = [id, row.status, row.nextAttemptAt, row.lastStatus, row.lastError, row.finishedAt];
      const update = `UPDATE webhook_deliveries SET status = $2, attempts = attempts + 1, next_attempt_at = $3,
                        last_status = $4, last_error = $5, finished_at = $6 WHERE id = $1`;
      if (!(outcome.kind === 'failed' && outcome.disableSubscription)) {
        await query(update, values);
        return;
      }
      // 410 Gone: this delivery fails, the subscription is disabled and its pending deliveries fail with it.
      await query(
        `WITH settled AS (${update} RETURNING subscription_id),
         disabled AS (UPDATE webhook_subscriptions SET enabled = false, disabled_reason = $7
                      WHERE id = (SELECT subscription_id FROM settled))
         UPDATE webhook_deliveries SET status = 'failed', last_error = 'subscription disabled: ' || $7, finished_at = $6
         WHERE status = 'pending' AND id <> $1 AND subscription_id = (SELECT subscription_id FROM settled)`,
        [...values, outcome.disableSubscription],
      );
    },
    async listDeliveries({ failedOnly, limit }) {
      const result = await query<DeliveryRow>(
        `SELECT * FROM webhook_deliveries WHERE (NOT $1 OR status = 'failed') ORDER BY id DESC LIMIT $2`,
        [failedOnly, limit],
      );
      return result.rows.map(toDelivery);
    },
    async replay(id, now) {
      const result = await query<{ found: boolean; copy: string | null }>(
        `WITH found AS (SELECT d.subscription_id, d.event_id, d.payload, s.enabled FROM webhook_deliveries d
                        LEFT JOIN webhook_subscriptions s ON s.id = d.subscription_id WHERE d.id = $1),
         copy AS (INSERT INTO webhook_deliveries (subscription_id, event_id, payload, created_at, next_attempt_at)
                  SELECT subscription_id, event_id, payload, $2, $2 FROM found WHERE enabled RETURNING id)
         SELECT EXISTS (SELECT 1 FROM found) AS found, (SELECT id FROM copy)::text AS copy`,
        [id, now],
      );
      const { found, copy } = result.rows[0]!;
      if (!found) return 'unknown';
      if (copy === null) return 'disabled';
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
      const result = await query<{ owner: string; id: string; queued: number }>(
        CREATE_BATCH_WITH_EVENTS,
        [
          rows.map((row) => row.owner),
          rows.map((row) => row.plant.id.toString()),
          rows.map((row) => row.plant.name),
          rows.map((row) => row.plant.tag ?? null),
          events.map((event) => event.eventId),
          events.map((event) => event.payload),
          Date.now(),
          channel,
          notifyPrefix,
        ],
        'create_batch_with_events',
      );
      if ((result.rows[0]?.queued ?? 0) > 0) signal.notify();
      return new Set(result.rows.map((row) => rowKey(row.owner, row.id)));
    },
    repository,
  };
}
