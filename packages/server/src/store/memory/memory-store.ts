// The memory engine (DATABASE_URL=memory:): the whole Store interface in plain Maps, for demos, frontend work and
// handler tests. Nothing is kept: closing the store, or the process ending, loses every plant, token and webhook.
// Each call is one synchronous step, so concurrent callers never interleave inside it (the other engines' atomicity).
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
} from '../outbox-event.js';
import {
  type ClaimedDelivery,
  IDEMPOTENCY_TTL_MS,
  type IdempotencyClaim,
  type IdempotencyRepository,
  type KeptAnswer,
  type PlantPage,
  type PlantRepository,
  type Store,
  type StoredPlant,
  type TokenRecord,
  type TokenRepository,
  type WebhookDelivery,
  type WebhookRepository,
} from '../store.js';

const utf8 = new TextEncoder();

/** The URL that names this engine. */
export const MEMORY_URL = 'memory:';

type KeptKey = KeptAnswer & { at: number };

function plantsOf(): PlantRepository & {
  owners: Map<string, Map<bigint, StoredPlant>>;
  keys: Map<string, KeptKey>;
  idempotency: IdempotencyRepository;
} {
  const owners = new Map<string, Map<bigint, StoredPlant>>();
  // Per owner: the data version every create and delete moves (the ETag's), and the answers kept for keys.
  const versions = new Map<string, number>();
  const keys = new Map<string, KeptKey>();
  const touch = (owner: string) => versions.set(owner, (versions.get(owner) ?? 0) + 1);
  const keyOf = (owner: string, key: string) => `${owner}\u0000${key}`;
  const live = (owner: string, key: string, now: number) => {
    const found = keys.get(keyOf(owner, key));
    return found && found.at > now - IDEMPOTENCY_TTL_MS ? found : undefined;
  };
  const owned = (owner: string) => {
    const plants = owners.get(owner) ?? new Map<bigint, StoredPlant>();
    owners.set(owner, plants);
    return plants;
  };
  const create = (owner: string, plant: StoredPlant) => {
    const plants = owned(owner);
    if (plants.has(plant.id)) return false;
    plants.set(plant.id, { ...plant });
    touch(owner);
    return true;
  };
  return {
    owners,
    keys,
    async create(owner, plant) {
      return create(owner, plant);
    },
    async createOnce(owner, plant, claim: IdempotencyClaim) {
      const found = live(owner, claim.key, claim.now);
      if (found) return { fingerprint: found.fingerprint, status: found.status, body: found.body };
      const created = create(owner, plant);
      keys.set(keyOf(owner, claim.key), {
        fingerprint: claim.fingerprint,
        status: created ? 200 : 409,
        body: created ? claim.created : claim.conflict,
        at: claim.now,
      });
      return created;
    },
    idempotency: {
      async remember(owner, key, answer, now) {
        const found = live(owner, key, now);
        if (found) return { fingerprint: found.fingerprint, status: found.status, body: found.body };
        keys.set(keyOf(owner, key), { ...answer, at: now });
        return undefined;
      },
      async sweep(before, maxPerOwner, limit) {
        let deleted = 0;
        for (const [id, entry] of keys) {
          if (deleted >= limit) break;
          if (entry.at < before) {
            keys.delete(id);
            deleted++;
          }
        }
        const byOwner = new Map<string, [string, number][]>();
        for (const [id, entry] of keys) {
          const owner = id.slice(0, id.indexOf('\u0000'));
          byOwner.set(owner, [...(byOwner.get(owner) ?? []), [id, entry.at]]);
        }
        for (const entries of byOwner.values()) {
          entries.sort((x, y) => x[1] - y[1]);
          for (const [id] of entries.slice(0, Math.max(0, entries.length - maxPerOwner))) {
            if (deleted >= limit) return deleted;
            keys.delete(id);
            deleted++;
          }
        }
        return deleted;
      },
    },
    async list(owner, { limit, after }): Promise<PlantPage> {
      const ids = [...owned(owner).keys()]
        .filter((id) => after === undefined || id > after)
        .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      const page = ids.slice(0, limit).map((id) => owned(owner).get(id) as StoredPlant);
      return {
        body: utf8.encode(JSON.stringify(page.map(({ name, tag }) => (tag === undefined ? { name } : { name, tag })))),
        lastId: page.at(-1)?.id,
        hasMore: ids.length > limit,
        version: String(versions.get(owner) ?? 0),
      };
    },
    async delete(owner, id) {
      const deleted = owned(owner).delete(id);
      if (deleted) touch(owner);
      return deleted;
    },
  };
}

function tokensOf(): TokenRepository {
  const byHash = new Map<string, TokenRecord & { secretHash: Buffer }>();
  const key = (hash: Buffer) => hash.toString('hex');
  return {
    async insert(record, secretHash) {
      byHash.set(key(secretHash), { ...record, scopes: [...record.scopes], secretHash: Buffer.from(secretHash) });
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

/** A new, empty store in this process's memory. */
export function openMemoryStore(): Store {
  const signal = new QueuedSignal();
  const plants = plantsOf();
  const webhooks = webhooksOf(signal);
  let closed = false;
  const { idempotency, keys, ...plantRepository } = plants;
  return {
    kind: 'memory',
    plants: {
      ...plantRepository,
      // The plant and its webhook deliveries in one step, as the other engines do in one transaction.
      async create(owner, plant) {
        const created = await plants.create(owner, plant);
        if (created) webhooks.queue(plant, owner);
        signal.committed();
        return created;
      },
      async createOnce(owner, plant, claim) {
        const outcome = await plants.createOnce(owner, plant, claim);
        if (outcome === true) webhooks.queue(plant, owner);
        signal.committed();
        return outcome;
      },
    },
    idempotency,
    tokens: tokensOf(),
    webhooks,
    async migrate() {
      return [];
    },
    async ping() {
      if (closed) throw new Error('the memory store is closed');
    },
    async close() {
      closed = true;
      plants.owners.clear();
      keys.clear();
    },
  };
}
