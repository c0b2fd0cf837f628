// The webhook outbox on SQLite: deliveries are queued by the plant's own write (same transaction, group commit
// included), leased by a claim that is one UPDATE inside a write transaction, and settled by the worker.
import type Database from 'better-sqlite3';
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

export interface SqliteOutbox {
  /**
   * Runs `insertPlant` and, when it inserted, queues the event for every matching subscription, in one transaction
   * (a savepoint inside a group commit's batch): both happen or neither. Returns what `insertPlant` returned.
   */
  createWithEvent(owner: string, plant: StoredPlant, insertPlant: () => boolean): boolean;
  /** After the commit of `createWithEvent`: wakes this process's delivery worker if anything was queued. */
  committed(): void;
  readonly repository: WebhookRepository;
}

export function createSqliteOutbox(
  db: Database.Database,
  write: <T>(work: () => T) => Promise<T>,
  statement: (sql: string) => Database.Statement,
): SqliteOutbox {
  const signal = new QueuedSignal();
  const createWithEvent = db.transaction((owner: string, plant: StoredPlant, insertPlant: () => boolean) => {
    if (!insertPlant()) return false;
    const { eventId, payload } = newPlantEvent(plant);
    const now = Date.now();
    const queued = statement(
      `INSERT INTO webhook_deliveries (subscription_id, event_id, payload, created_at, next_attempt_at)
       SELECT id, ?, ?, ?, ? FROM webhook_subscriptions WHERE enabled = 1 AND (subject IS NULL OR subject = ?)`,
    ).run(eventId, payload, now, now, owner);
    if (queued.changes > 0) signal.mark();
    return true;
  });

  const repository: WebhookRepository = {
    async addSubscription({ id, url, subject, secret }) {
      const insert = statement(
        'INSERT INTO webhook_subscriptions (id, url, subject, secret, created_at) VALUES (?, ?, ?, ?, ?)',
      );
      await write(() => insert.run(id, url, subject, secret, Date.now()));
    },
    async listSubscriptions() {
      const rows = statement('SELECT * FROM webhook_subscriptions ORDER BY created_at, id').all() as SubscriptionRow[];
      return rows.map(toSubscription);
    },
    async removeSubscription(id) {
      const removeDeliveries = statement('DELETE FROM webhook_deliveries WHERE subscription_id = ?');
      const remove = statement('DELETE FROM webhook_subscriptions WHERE id = ?');
      return write(() => {
        removeDeliveries.run(id);
        return remove.run(id).changes === 1;
      });
    },
    async rotateSecret(id, secret, previousUntil) {
      const update = statement(
        `UPDATE webhook_subscriptions SET previous_secret = secret, previous_secret_until = ?, secret = ?
         WHERE id = ?`,
      );
      return write(() => update.run(previousUntil.getTime(), secret, id).changes === 1);
    },
    async hasDue(now) {
      const due = statement(
        `SELECT 1 FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= ? LIMIT 1`,
      );
      return due.get(now) !== undefined;
    },
    async claimDue(now, leaseUntil, limit) {
      const claim = statement(
        `UPDATE webhook_deliveries SET next_attempt_at = ?
         WHERE id IN (SELECT id FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= ?
                      ORDER BY next_attempt_at LIMIT ?)
         RETURNING id, subscription_id, event_id, payload, attempts, created_at`,
      );
      const subscription = statement('SELECT * FROM webhook_subscriptions WHERE id = ?');
      return write(() =>
        (claim.all(leaseUntil, now, limit) as (DeliveryRow & { payload: string })[]).map((row): ClaimedDelivery => {
          const found = subscription.get(row.subscription_id) as SubscriptionRow | undefined;
          return {
            id: Number(row.id),
            eventId: row.event_id,
            payload: row.payload,
            attempts: row.attempts,
            createdAt: Number(row.created_at),
            subscription:
              found?.enabled === 1 ? { id: found.id, url: found.url, secrets: signingSecrets(found, now) } : undefined,
          };
        }),
      );
    },
    async settle(id, outcome, now) {
      if (outcome.kind === 'released') {
        const release = statement(
          `UPDATE webhook_deliveries SET next_attempt_at = ? WHERE id = ? AND status = 'pending'`,
        );
        await write(() => release.run(now, id));
        return;
      }
      const row = settlement(outcome, now);
      const update = statement(
        `UPDATE webhook_deliveries SET status = ?, attempts = attempts + 1, next_attempt_at = ?, last_status = ?,
           last_error = ?, finished_at = ? WHERE id = ?`,
      );
      const disable = statement(
        `UPDATE webhook_subscriptions SET enabled = 0, disabled_reason = ?
         WHERE id = (SELECT subscription_id FROM webhook_deliveries WHERE id = ?)`,
      );
      const failPending = statement(
        `UPDATE webhook_deliveries SET status = 'failed', last_error = ?, finished_at = ?
         WHERE status = 'pending' AND subscription_id = (SELECT subscription_id FROM webhook_deliveries WHERE id = ?)`,
      );
      await write(() => {
        update.run(row.status, row.nextAttemptAt, row.lastStatus, row.lastError, row.finishedAt, id);
        if (outcome.kind === 'failed' && outcome.disableSubscription) {
          disable.run(outcome.disableSubscription, id);
          failPending.run(`subscription disabled: ${outcome.disableSubscription}`, now, id);
        }
      });
    },
    async listDeliveries({ failedOnly, limit }) {
      const list = statement(
        `SELECT * FROM webhook_deliveries WHERE (? = 0 OR status = 'failed') ORDER BY id DESC LIMIT ?`,
      );
      return (list.all(failedOnly ? 1 : 0, limit) as DeliveryRow[]).map(toDelivery);
    },
    async replay(id, now) {
      const find = statement(
        `SELECT d.subscription_id, s.enabled FROM webhook_deliveries d
         LEFT JOIN webhook_subscriptions s ON s.id = d.subscription_id WHERE d.id = ?`,
      );
      const copy = statement(
        `INSERT INTO webhook_deliveries (subscription_id, event_id, payload, created_at, next_attempt_at)
         SELECT subscription_id, event_id, payload, ?, ? FROM webhook_deliveries WHERE id = ? RETURNING id`,
      );
      const result = await write(() => {
        const found = find.get(id) as { enabled: number | null } | undefined;
        if (!found) return 'unknown' as const;
        if (found.enabled !== 1) return 'disabled' as const;
        return Number((copy.get(now, now, id) as { id: number }).id);
      });
      if (typeof result === 'number') signal.notify();
      return result;
    },
    async prune(before) {
      const prune = statement(`DELETE FROM webhook_deliveries WHERE status <> 'pending' AND finished_at < ?`);
      return write(() => prune.run(before).changes);
    },
    onQueued: (listener) => signal.on(listener),
  };

  return {
    createWithEvent: (owner, plant, insertPlant) => createWithEvent(owner, plant, insertPlant),
    committed: () => signal.committed(),
    repository,
  };
}
