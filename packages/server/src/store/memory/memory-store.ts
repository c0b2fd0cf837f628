// The memory engine (DATABASE_URL=memory:): the whole Store interface in plain Maps, for demos, frontend work and
// tests. Nothing is kept: closing the store, or the process ending, loses every plant, token and webhook. The plants
// and kept answers are @plant-store/core's memory engine (the one the SDK's testing kit runs); this adds tokens,
// webhooks and the outbox. Each call is one synchronous step, so concurrent callers never interleave inside it (the
// other engines' atomicity).
import { openMemoryPlants } from '@plant-store/core';
import { ownBytes } from '../cache/own-bytes.js';
import {
  circuitAfterFailure,
  leaseRoom,
  newPlantEvent,
  QueuedSignal,
  type SubscriptionRow,
  settlement,
  signingSecrets,
  takeTurns,
  toSubscription,
} from '../outbox/event.js';
import type {
  ClaimedDelivery,
  Store,
  StoredPlant,
  TokenRecord,
  TokenRepository,
  WebhookDelivery,
  WebhookRepository,
} from '../store.js';

/** The URL that names this engine. */
export const MEMORY_URL = 'memory:';

function tokensOf(): TokenRepository {
  const byHash = new Map<string, TokenRecord & { secretHash: Buffer }>();
  const key = (hash: Buffer) => hash.toString('hex');
  return {
    async insert(record, secretHash) {
      byHash.set(key(secretHash), { ...record, scopes: [...record.scopes], secretHash: ownBytes(secretHash) });
    },
    async findByHash(secretHash) {
      const found = byHash.get(key(secretHash));
      return found ? { ...found, scopes: [...found.scopes] } : undefined;
    },
    async list() {
      return [...byHash.values()]
        .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
        .map(({ secretHash: _hash, ...record }) => ({ ...record, scopes: [...record.scopes] }));
    },
    async revoke(id, at) {
      const found = [...byHash.values()].find((record) => record.id === id);
      if (!found) return false;
      found.revokedAt ??= at;
      return true;
    },
  };
}

interface DeliveryEntry extends WebhookDelivery {
  payload: string;
  /** Until when a worker holds it, or null. */
  leasedUntil: number | null;
}

function webhooksOf(signal: QueuedSignal): WebhookRepository & { queue(plant: StoredPlant, owner: string): void } {
  const subscriptions = new Map<string, SubscriptionRow>();
  const deliveries = new Map<number, DeliveryEntry>();
  let nextId = 1;
  const add = (subscriptionId: string, eventId: string, payload: string, now: number): number => {
    const id = nextId++;
    deliveries.set(id, {
      id,
      subscriptionId,
      eventId,
      payload,
      status: 'pending',
      attempts: 0,
      createdAt: now,
      nextAttemptAt: now,
      lastStatus: null,
      lastError: null,
      finishedAt: null,
      leasedUntil: null,
    });
    return id;
  };
  const view = ({ payload: _payload, leasedUntil: _leased, ...delivery }: DeliveryEntry): WebhookDelivery => ({
    ...delivery,
  });
  const pendingOf = (subscriptionId: string) =>
    [...deliveries.values()].filter((d) => d.subscriptionId === subscriptionId && d.status === 'pending');
  const leasedOf = (subscriptionId: string, now: number) =>
    pendingOf(subscriptionId).filter((d) => d.leasedUntil !== null && d.leasedUntil > now).length;
  // Enabled subscriptions whose circuit lets them send now, each with its due deliveries and the room it has.
  const openQueues = (now: number, perSubscription: number) =>
    [...subscriptions.values()]
      .filter((row) => row.enabled && (row.circuit_open_until === null || Number(row.circuit_open_until) <= now))
      .map((row) => ({
        row,
        due: pendingOf(row.id)
          .filter((d) => d.nextAttemptAt <= now)
          .sort((a, b) => a.nextAttemptAt - b.nextAttemptAt || a.id - b.id),
        room: leaseRoom(row.circuit_open_until, leasedOf(row.id, now), perSubscription, now),
      }))
      .filter((queue) => queue.due.length > 0);
  return {
    queue(plant, owner) {
      const matching = [...subscriptions.values()].filter(
        (subscription) => subscription.enabled && (subscription.subject === null || subscription.subject === owner),
      );
      if (matching.length === 0) return;
      const { eventId, payload } = newPlantEvent(plant);
      for (const subscription of matching) add(subscription.id, eventId, payload, Date.now());
      signal.mark();
    },
    async addSubscription({ id, url, subject, secret }) {
      subscriptions.set(id, {
        id,
        url,
        subject,
        secret,
        previous_secret: null,
        previous_secret_until: null,
        enabled: true,
        disabled_reason: null,
        created_at: Date.now(),
        failure_streak: 0,
        circuit_open_until: null,
        circuit_opens: 0,
      });
    },
    async listSubscriptions() {
      return [...subscriptions.values()].map(toSubscription);
    },
    async removeSubscription(id) {
      if (!subscriptions.delete(id)) return false;
      for (const [key, delivery] of deliveries) if (delivery.subscriptionId === id) deliveries.delete(key);
      return true;
    },
    async rotateSecret(id, secret, previousUntil) {
      const found = subscriptions.get(id);
      if (!found) return false;
      found.previous_secret = found.secret;
      found.previous_secret_until = previousUntil.getTime();
      found.secret = secret;
      return true;
    },
    async enableSubscription(id) {
      const found = subscriptions.get(id);
      if (!found) return false;
      Object.assign(found, {
        enabled: true,
        disabled_reason: null,
        failure_streak: 0,
        circuit_open_until: null,
        circuit_opens: 0,
      });
      signal.notify();
      return true;
    },
    async hasDue(now, perSubscription) {
      return openQueues(now, perSubscription).some((queue) => queue.room > 0);
    },
    async claimDue(now, leaseUntil, limit, perSubscription) {
      const queues = openQueues(now, perSubscription);
      const picked = takeTurns(
        queues.map((queue) => queue.due.slice(0, Math.min(queue.room, limit))),
        limit,
      );
      return picked.map((delivery): ClaimedDelivery => {
        delivery.nextAttemptAt = leaseUntil;
        delivery.leasedUntil = leaseUntil;
        const found = subscriptions.get(delivery.subscriptionId) as SubscriptionRow;
        return {
          id: delivery.id,
          eventId: delivery.eventId,
          payload: delivery.payload,
          attempts: delivery.attempts,
          createdAt: delivery.createdAt,
          subscription: { id: found.id, url: found.url, secrets: signingSecrets(found, now) },
        };
      });
    },
    async settle(id, outcome, now, circuit) {
      const delivery = deliveries.get(id);
      if (!delivery) return;
      if (outcome.kind === 'released') {
        if (delivery.status === 'pending') Object.assign(delivery, { nextAttemptAt: now, leasedUntil: null });
        return;
      }
      Object.assign(delivery, settlement(outcome, now), { attempts: delivery.attempts + 1, leasedUntil: null });
      if (outcome.kind === 'failed' && outcome.disableSubscription) {
        const subscription = subscriptions.get(delivery.subscriptionId);
        if (subscription) {
          subscription.enabled = false;
          subscription.disabled_reason = outcome.disableSubscription;
        }
        for (const other of deliveries.values()) {
          if (other.status === 'pending' && other.subscriptionId === delivery.subscriptionId) {
            Object.assign(other, {
              status: 'failed',
              lastError: `subscription disabled: ${outcome.disableSubscription}`,
              finishedAt: now,
              leasedUntil: null,
            });
          }
        }
      }
      const subscription = subscriptions.get(delivery.subscriptionId);
      if (subscription && circuit?.kind === 'answered') {
        Object.assign(subscription, { failure_streak: 0, circuit_open_until: null, circuit_opens: 0 });
      } else if (subscription && circuit?.kind === 'failed') {
        const next = circuitAfterFailure(subscription, now, circuit);
        Object.assign(subscription, {
          failure_streak: next.failureStreak,
          circuit_open_until: next.circuitOpenUntil,
          circuit_opens: next.circuitOpens,
        });
      }
    },
    async expire(createdBefore, now) {
      let expired = 0;
      for (const delivery of deliveries.values()) {
        if (delivery.status !== 'pending' || delivery.createdAt >= createdBefore) continue;
        if (delivery.leasedUntil !== null && delivery.leasedUntil > now) continue;
        Object.assign(delivery, {
          status: 'failed',
          finishedAt: now,
          leasedUntil: null,
          lastError: `${delivery.lastError === null ? '' : `${delivery.lastError}; `}retry period over before the next attempt`,
        });
        expired++;
      }
      return expired;
    },
    async queues(now) {
      return [...subscriptions.values()]
        .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
        .map((row) => {
          const pending = pendingOf(row.id);
          return {
            subscriptionId: row.id,
            pending: pending.length,
            leased: leasedOf(row.id, now),
            oldestCreatedAt: pending.length === 0 ? null : Math.min(...pending.map((d) => d.createdAt)),
            circuitOpenUntil: row.circuit_open_until === null ? null : Number(row.circuit_open_until),
          };
        });
    },
    async listDeliveries({ failedOnly, limit }) {
      return [...deliveries.values()]
        .filter((delivery) => !failedOnly || delivery.status === 'failed')
        .sort((a, b) => b.id - a.id)
        .slice(0, limit)
        .map(view);
    },
    async replay(id, now) {
      const delivery = deliveries.get(id);
      if (!delivery) return 'unknown';
      if (!subscriptions.get(delivery.subscriptionId)?.enabled) return 'disabled';
      const pending = pendingOf(delivery.subscriptionId).find((other) => other.eventId === delivery.eventId);
      if (pending) return { pending: pending.id };
      const copy = add(delivery.subscriptionId, delivery.eventId, delivery.payload, now);
      signal.notify();
      return copy;
    },
    async prune(before) {
      let pruned = 0;
      for (const [key, delivery] of deliveries) {
        if (delivery.status !== 'pending' && delivery.finishedAt !== null && delivery.finishedAt < before) {
          deliveries.delete(key);
          pruned++;
        }
      }
      return pruned;
    },
    onQueued: (listener) => signal.on(listener),
  };
}

/**
 * `repository` with each of its methods refusing once `isClosed()` says so, as a closed connection refuses on the other
 * engines: a closed memory store must not go on answering as an empty one.
 */
function whileOpen<T extends object>(repository: T, isClosed: () => boolean): T {
  const guarded = { ...repository } as Record<string, unknown>;
  for (const [name, method] of Object.entries(repository)) {
    if (typeof method !== 'function') continue;
    guarded[name] = (...args: unknown[]) =>
      isClosed() ? Promise.reject(new Error('the memory store is closed')) : method(...args);
  }
  return guarded as T;
}

/** A new, empty store in this process's memory. */
export function openMemoryStore(): Store {
  const signal = new QueuedSignal();
  const engine = openMemoryPlants();
  const { plants } = engine;
  const { onQueued, ...webhooks } = webhooksOf(signal);
  let closed = false;
  const isClosed = () => closed;
  return {
    kind: 'memory',
    plants: whileOpen(
      {
        // Every read and write of the plants as the core's engine does it (a method the repository gains needs no
        // line here), but the creates:
        ...plants,
        // the plant and its webhook deliveries in one step, as the other engines do in one transaction.
        async create(owner: string, plant: StoredPlant) {
          const created = await plants.create(owner, plant);
          if (created) webhooks.queue(plant, owner);
          signal.committed();
          return created;
        },
        async createOnce(owner: string, plant: StoredPlant, claim: Parameters<typeof plants.createOnce>[2]) {
          const outcome = await plants.createOnce(owner, plant, claim);
          if (outcome === true) webhooks.queue(plant, owner);
          signal.committed();
          return outcome;
        },
      },
      isClosed,
    ),
    idempotency: whileOpen(engine.idempotency, isClosed),
    tokens: whileOpen(tokensOf(), isClosed),
    // Registering a listener is no database call: it stays allowed, as on the other engines.
    webhooks: { ...whileOpen(webhooks, isClosed), onQueued },
    async migrate() {
      return [];
    },
    async ping() {
      if (closed) throw new Error('the memory store is closed');
    },
    async close() {
      closed = true;
      engine.clear();
    },
  };
}
