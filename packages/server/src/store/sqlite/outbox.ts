// The webhook outbox on SQLite: deliveries are queued by the plant's own write (same transaction, group commit
// included), leased by a claim that is one UPDATE inside a write transaction, and settled by the worker.
import type Database from 'better-sqlite3';
import {
  circuitAfterFailure,
  type DeliveryRow,
  leaseRoom,
  newPlantEvent,
  QueuedSignal,
  type SubscriptionRow,
  settlement,
  signingSecrets,
  takeTurns,
  toDelivery,
  toSubscription,
} from '../outbox/event.js';
import type { ClaimedDelivery, StoredPlant, WebhookRepository } from '../store.js';

export interface SqliteOutbox {
  /**
   * Runs `insertPlant` and, when it inserted, queues the event for every matching subscription, in one transaction
   * (a savepoint inside a group commit's batch): both happen or neither. Returns what `insertPlant` returned (truthy:
   * it inserted).
   */
  createWithEvent<Inserted>(owner: string, plant: StoredPlant, insertPlant: () => Inserted): Inserted;
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
  const createWithEvent = db.transaction((owner: string, plant: StoredPlant, insertPlant: () => unknown) => {
    const inserted = insertPlant();
    if (!inserted) return inserted;
    const { eventId, payload } = newPlantEvent(plant);
    const now = Date.now();
    const queued = statement(
      `INSERT INTO webhook_deliveries (subscription_id, event_id, payload, created_at, next_attempt_at)
       SELECT id, ?, ?, ?, ? FROM webhook_subscriptions WHERE enabled = 1 AND (subject IS NULL OR subject = ?)`,
    ).run(eventId, payload, now, now, owner);
    if (queued.changes > 0) signal.mark();
    return inserted;
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
    async enableSubscription(id) {
      const enable = statement(
        `UPDATE webhook_subscriptions SET enabled = 1, disabled_reason = NULL, failure_streak = 0,
           circuit_open_until = NULL, circuit_opens = 0 WHERE id = ?`,
      );
      const enabled = await write(() => enable.run(id).changes === 1);
      if (enabled) signal.notify();
      return enabled;
    },
    async hasDue(now, perSubscription) {
      // From the subscriptions (few) through the per-subscription indexes: an open circuit's backlog is never scanned.
      const due = statement(
        `SELECT 1 FROM webhook_subscriptions s
         WHERE s.enabled = 1 AND (s.circuit_open_until IS NULL OR s.circuit_open_until <= ?)
           AND EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.subscription_id = s.id AND d.status = 'pending'
                       AND d.next_attempt_at <= ?)
           AND (SELECT count(*) FROM webhook_deliveries d WHERE d.subscription_id = s.id AND d.status = 'pending'
                AND d.leased_until > ?) < CASE WHEN s.circuit_open_until IS NULL THEN ? ELSE 1 END
         LIMIT 1`,
      );
      return due.get(now, now, now, perSubscription) !== undefined;
    },
    async claimDue(now, leaseUntil, limit, perSubscription) {
      // One write transaction (SQLite has one writer at a time, across processes too), so counting each queue's
      // leases and leasing more is atomic.
      const queues = statement(
        `SELECT s.*, (SELECT count(*) FROM webhook_deliveries d WHERE d.subscription_id = s.id AND d.status = 'pending'
                      AND d.leased_until > ?) AS leased
         FROM webhook_subscriptions s
         WHERE s.enabled = 1 AND (s.circuit_open_until IS NULL OR s.circuit_open_until <= ?)
           AND EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.subscription_id = s.id AND d.status = 'pending'
                       AND d.next_attempt_at <= ?)`,
      );
      const due = statement(
        `SELECT id FROM webhook_deliveries WHERE subscription_id = ? AND status = 'pending' AND next_attempt_at <= ?
         ORDER BY next_attempt_at, id LIMIT ?`,
      );
      const lease = statement(
        `UPDATE webhook_deliveries SET next_attempt_at = ?, leased_until = ? WHERE id = ?
         RETURNING id, subscription_id, event_id, payload, attempts, created_at`,
      );
      return write(() => {
        const open = queues.all(now, now, now) as (SubscriptionRow & { leased: number })[];
        const byId = new Map(open.map((row) => [row.id, row]));
        const picked = takeTurns(
          open.map((row) => {
            const room = leaseRoom(row.circuit_open_until, row.leased, perSubscription, now);
            return room === 0 ? [] : (due.all(row.id, now, Math.min(room, limit)) as { id: number }[]);
          }),
          limit,
        );
        return picked.map(({ id }): ClaimedDelivery => {
          const row = lease.get(leaseUntil, leaseUntil, id) as DeliveryRow & { payload: string };
          const found = byId.get(row.subscription_id)!;
          return {
            id: Number(row.id),
            eventId: row.event_id,
            payload: row.payload,
            attempts: row.attempts,
            createdAt: Number(row.created_at),
            subscription: { id: found.id, url: found.url, secrets: signingSecrets(found, now) },
          };
        });
      });
    },
    async settle(id, outcome, now, circuit) {
      if (outcome.kind === 'released') {
        const release = statement(
          `UPDATE webhook_deliveries SET next_attempt_at = ?, leased_until = NULL WHERE id = ? AND status = 'pending'`,
        );
        await write(() => release.run(now, id));
        return;
      }
      const row = settlement(outcome, now);
      const update = statement(
        `UPDATE webhook_deliveries SET status = ?, attempts = attempts + 1, next_attempt_at = ?, last_status = ?,
           last_error = ?, finished_at = ?, leased_until = NULL WHERE id = ?`,
      );
      const disable = statement(
        `UPDATE webhook_subscriptions SET enabled = 0, disabled_reason = ?
         WHERE id = (SELECT subscription_id FROM webhook_deliveries WHERE id = ?)`,
      );
      const failPending = statement(
        `UPDATE webhook_deliveries SET status = 'failed', last_error = ?, finished_at = ?, leased_until = NULL
         WHERE status = 'pending' AND subscription_id = (SELECT subscription_id FROM webhook_deliveries WHERE id = ?)`,
      );
      const heal = statement(
        `UPDATE webhook_subscriptions SET failure_streak = 0, circuit_open_until = NULL, circuit_opens = 0
         WHERE id = (SELECT subscription_id FROM webhook_deliveries WHERE id = ?)
           AND (failure_streak <> 0 OR circuit_open_until IS NOT NULL)`,
      );
      const subscriptionOf = statement(
        `SELECT s.id, s.failure_streak, s.circuit_open_until, s.circuit_opens FROM webhook_subscriptions s
         WHERE s.id = (SELECT subscription_id FROM webhook_deliveries WHERE id = ?)`,
      );
      const fail = statement(
        'UPDATE webhook_subscriptions SET failure_streak = ?, circuit_open_until = ?, circuit_opens = ? WHERE id = ?',
      );
      await write(() => {
        update.run(row.status, row.nextAttemptAt, row.lastStatus, row.lastError, row.finishedAt, id);
        if (outcome.kind === 'failed' && outcome.disableSubscription) {
          disable.run(outcome.disableSubscription, id);
          failPending.run(`subscription disabled: ${outcome.disableSubscription}`, now, id);
        }
        if (circuit?.kind === 'answered') heal.run(id);
        else if (circuit?.kind === 'failed') {
          const found = subscriptionOf.get(id) as
            | Pick<SubscriptionRow, 'id' | 'failure_streak' | 'circuit_open_until' | 'circuit_opens'>
            | undefined;
          if (!found) return;
          const next = circuitAfterFailure(found, now, circuit);
          fail.run(next.failureStreak, next.circuitOpenUntil, next.circuitOpens, found.id);
        }
      });
    },
    async expire(createdBefore, now) {
      const expire = statement(
        `UPDATE webhook_deliveries SET status = 'failed', finished_at = ?,
           last_error = coalesce(last_error || '; ', '') || 'retry period over before the next attempt'
         WHERE status = 'pending' AND created_at < ? AND (leased_until IS NULL OR leased_until <= ?)`,
      );
      return write(() => expire.run(now, createdBefore, now).changes);
    },
    async queues(now) {
      const queues = statement(
        `SELECT s.id, s.circuit_open_until, count(d.id) AS pending, min(d.created_at) AS oldest,
           coalesce(sum(d.leased_until > ?), 0) AS leased
         FROM webhook_subscriptions s LEFT JOIN webhook_deliveries d ON d.subscription_id = s.id AND d.status = 'pending'
         GROUP BY s.id ORDER BY s.id`,
      );
      return (
        queues.all(now) as {
          id: string;
          circuit_open_until: number | null;
          pending: number;
          oldest: number | null;
          leased: number;
        }[]
      ).map((row) => ({
        subscriptionId: row.id,
        pending: Number(row.pending),
        leased: Number(row.leased),
        oldestCreatedAt: row.oldest === null ? null : Number(row.oldest),
        circuitOpenUntil: row.circuit_open_until === null ? null : Number(row.circuit_open_until),
      }));
    },
    async listDeliveries({ failedOnly, limit }) {
      const list = statement(
        `SELECT * FROM webhook_deliveries WHERE (? = 0 OR status = 'failed') ORDER BY id DESC LIMIT ?`,
      );
      return (list.all(failedOnly ? 1 : 0, limit) as DeliveryRow[]).map(toDelivery);
    },
    async replay(id, now) {
      const find = statement(
        `SELECT d.subscription_id, s.enabled,
           (SELECT p.id FROM webhook_deliveries p WHERE p.subscription_id = d.subscription_id
              AND p.event_id = d.event_id AND p.status = 'pending' ORDER BY p.id LIMIT 1) AS pending
         FROM webhook_deliveries d LEFT JOIN webhook_subscriptions s ON s.id = d.subscription_id WHERE d.id = ?`,
      );
      const copy = statement(
        `INSERT INTO webhook_deliveries (subscription_id, event_id, payload, created_at, next_attempt_at)
         SELECT subscription_id, event_id, payload, ?, ? FROM webhook_deliveries WHERE id = ? RETURNING id`,
      );
      const result = await write(() => {
        const found = find.get(id) as { enabled: number | null; pending: number | null } | undefined;
        if (!found) return 'unknown' as const;
        if (found.enabled !== 1) return 'disabled' as const;
        if (found.pending !== null) return { pending: Number(found.pending) };
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
    // better-sqlite3's transaction types drop the type parameter: the transaction returns what insertPlant did.
    createWithEvent: <Inserted>(owner: string, plant: StoredPlant, insertPlant: () => Inserted) =>
      createWithEvent(owner, plant, insertPlant) as Inserted,
    committed: () => signal.committed(),
    repository,
  };
}
