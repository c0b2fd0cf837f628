// The persistence boundary: what the service needs from a database, with no HTTP or Fastify in sight. The part the
// handlers run on (plants, the answers kept for Idempotency-Keys) is @plant-store/core's PlantStore, which the SDK's
// testing kit runs too; this Store adds tokens, webhooks and the engine's life cycle. Ids are bigint throughout so no
// int64 is ever rounded; implementations store them as 64-bit integers.

import type { Scope } from '@plant-store/contract';
import type { PlantStore } from '@plant-store/core';

export {
  IDEMPOTENCY_TTL_MS,
  type IdempotencyClaim,
  type IdempotencyRepository,
  type KeptAnswer,
  type PlantPage,
  type PlantRepository,
  type StoredPlant,
} from '@plant-store/core';

/** Thrown by a store when its database cannot be reached; answered with 503 so clients retry. */
export class StoreUnavailableError extends Error {
  override name = 'StoreUnavailableError';
  /** The setting that names the database that failed (DATABASE_DIRECT_URL, say), for the hint a refusal gives. */
  readonly setting: string;

  constructor(message: string, options?: ErrorOptions & { setting?: string }) {
    super(message, options);
    this.setting = options?.setting ?? 'DATABASE_URL';
  }
}

export interface TokenRecord {
  /** Public identifier, used to list and revoke; never the secret. */
  id: string;
  /** The principal the token acts for. */
  subject: string;
  scopes: Scope[];
  createdAt: Date;
  expiresAt: Date | null;
  revokedAt: Date | null;
}

export interface TokenRepository {
  /** Stores a new token by the SHA-256 hash of its secret. */
  insert(record: TokenRecord, secretHash: Buffer): Promise<void>;
  /** The token whose secret hashes to `secretHash`, revoked and expired ones included. */
  findByHash(secretHash: Buffer): Promise<(TokenRecord & { secretHash: Buffer }) | undefined>;
  /**
   * What findByHash would answer, when the store holds it in memory and knows it is current (a cache hit, checked
   * as findByHash checks it); undefined when only findByHash can tell. Lets a request that hits the cache be
   * authenticated without waiting a turn.
   */
  cachedByHash?(secretHash: Buffer): (TokenRecord & { secretHash: Buffer }) | undefined;
  list(): Promise<TokenRecord[]>;
  /** Marks the token revoked. Returns false when no token has that id. */
  revoke(id: string, at: Date): Promise<boolean>;
}

/** A webhook subscription as the operator sees it; the signing secrets never leave the store this way. */
export interface WebhookSubscription {
  id: string;
  url: string;
  /** The principal whose plants it receives; null for every principal's. */
  subject: string | null;
  enabled: boolean;
  /** Why it was disabled (e.g. the receiver answered 410), or null. */
  disabledReason: string | null;
  createdAt: Date;
  /** Until when the previous secret still signs too (after a rotation), or null. */
  previousSecretUntil: Date | null;
  /** Attempts that failed in a row (timeouts, connection errors, 408, 429, 5xx); an answer resets it. */
  failureStreak: number;
  /**
   * While its circuit breaker is open, until when no attempt is made; once past, one probe at a time until an answer
   * closes it. Null while closed.
   */
  circuitOpenUntil: Date | null;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

/** One event on its way to one subscription. Times are milliseconds since the epoch. */
export interface WebhookDelivery {
  id: number;
  subscriptionId: string;
  /** The Standard Webhooks message id (`webhook-id`): the same on every attempt and replay. */
  eventId: string;
  status: DeliveryStatus;
  attempts: number;
  createdAt: number;
  /** When the next attempt is due (pending), or when a worker's lease on it runs out. */
  nextAttemptAt: number;
  /** The receiver's last HTTP status, or null when it never answered. */
  lastStatus: number | null;
  lastError: string | null;
  finishedAt: number | null;
}

/** A delivery claimed by a worker, with what it needs to send it. */
export interface ClaimedDelivery {
  id: number;
  eventId: string;
  /** The exact request body: the NewPlant JSON. */
  payload: string;
  attempts: number;
  createdAt: number;
  /** Undefined when the subscription was removed or disabled since the event was queued. */
  subscription: { id: string; url: string; secrets: string[] } | undefined;
}

/**
 * What an attempt says about the receiver, for its subscription's circuit breaker (shared by every instance through
 * the database): it answered (the streak of failures ends and the circuit closes), or it failed again (after
 * `failures` in a row the circuit opens for `openMs`, doubled each time a probe fails, at most `maxOpenMs`).
 */
export type CircuitUpdate =
  | { kind: 'answered' }
  | { kind: 'failed'; failures: number; openMs: number; maxOpenMs: number };

/** One subscription's queue now (for metrics). Times are milliseconds since the epoch. */
export interface SubscriptionQueue {
  subscriptionId: string;
  /** Deliveries waiting (due, scheduled for a retry, or in flight). */
  pending: number;
  /** Of those, leased by a worker now (in flight somewhere). */
  leased: number;
  /** When the oldest pending delivery was queued, or null when none is pending. */
  oldestCreatedAt: number | null;
  circuitOpenUntil: number | null;
}

/** What became of one attempt. */
export type DeliveryOutcome =
  | { kind: 'delivered'; status: number }
  | { kind: 'retry'; at: number; status: number | null; error: string }
  | { kind: 'failed'; status: number | null; error: string; disableSubscription?: string }
  /** Abandoned at shutdown before an answer: due again at once, the attempt not counted. */
  | { kind: 'released' };

export interface WebhookRepository {
  addSubscription(subscription: { id: string; url: string; subject: string | null; secret: string }): Promise<void>;
  listSubscriptions(): Promise<WebhookSubscription[]>;
  /** Removes the subscription and its deliveries; false when no subscription has that id. */
  removeSubscription(id: string): Promise<boolean>;
  /** Replaces the secret; the old one keeps signing until `previousUntil`. False when no subscription has that id. */
  rotateSecret(id: string, secret: string, previousUntil: Date): Promise<boolean>;
  /** Enables a subscription again (after a 410 disabled it), its circuit closed. False when no subscription has that id. */
  enableSubscription(id: string): Promise<boolean>;
  /**
   * True when an enabled subscription with room in its queue (see claimDue) has a pending delivery due at `now` (a
   * cheap read, so idle polling never writes).
   */
  hasDue(now: number, perSubscription: number): Promise<boolean>;
  /**
   * Leases up to `limit` due deliveries until `leaseUntil` (their next attempt moves there, so a worker that dies
   * leaves them due again once the lease runs out), taking turns between subscriptions (each one's first, then each
   * one's second, ...). Each subscription is a queue of its own: at most `perSubscription` of its deliveries are leased
   * at once across every worker sharing the database (one while its circuit is half open, none while it is open).
   * Atomic: concurrent workers never claim the same delivery, nor together more than a subscription's cap.
   */
  claimDue(now: number, leaseUntil: number, limit: number, perSubscription: number): Promise<ClaimedDelivery[]>;
  /** Records the attempt's outcome, ends the lease, and updates the subscription's circuit breaker if told. */
  settle(id: number, outcome: DeliveryOutcome, now: number, circuit?: CircuitUpdate): Promise<void>;
  /**
   * Fails the pending deliveries not leased now that were queued before `createdBefore` (their retry period is over,
   * e.g. while their subscription's circuit stayed open); how many.
   */
  expire(createdBefore: number, now: number): Promise<number>;
  /** Every subscription's queue, for metrics. */
  queues(now: number): Promise<SubscriptionQueue[]>;
  /** The newest deliveries first, at most `limit`. */
  listDeliveries(options: { failedOnly: boolean; limit: number }): Promise<WebhookDelivery[]>;
  /**
   * Queues the delivery's event again (same `webhook-id` and body) as a new delivery due now; its id, or
   * 'unknown' / 'disabled' when there is no such delivery or its subscription is gone or disabled, or `{ pending }`
   * (nothing queued) while a delivery of that event to that subscription is still pending: it is sent at its next
   * attempt, and a copy beside it would send the event twice.
   */
  replay(id: number, now: number): Promise<number | 'unknown' | 'disabled' | { pending: number }>;
  /** Deletes finished (delivered or failed) deliveries that finished before `before`; how many. */
  prune(before: number): Promise<number>;
  /** Calls `listener` after a commit that queued deliveries in this process; returns the unsubscribe. */
  onQueued(listener: () => void): () => void;
}

/** A read cache's counters since the store opened, and its size now (for metrics). */
export interface CacheStats {
  hits: number;
  misses: number;
  bytes: number;
  entries: number;
}

/** A connection pool's usage now (for metrics): its bound, connections open, idle ones, callers waiting. */
export interface PoolStats {
  max: number;
  total: number;
  idle: number;
  waiting: number;
}

export interface Store extends PlantStore {
  /** Which engine backs this store ('sqlite', 'postgres', 'memory': its name in store/open-store.ts), for readiness,
   * metrics and tests. */
  readonly kind: string;
  /** The page cache's counters, where the store has one. */
  cacheStats?(): CacheStats;
  /** The connection pool's usage, where the store has one. */
  poolStats?(): PoolStats;
  /** The change feed's state, where the store has one (PostgreSQL): live, and how late notifications arrive. */
  feedStats?(): { live: boolean; lagSeconds: number };
  /**
   * A request has begun. A store whose caches are checked against the database before they answer (SQLite: another
   * process may have committed) checks once for the request's calls rather than once per call, until the next
   * request begins or the event loop's turn ends. Calls outside requests check each time. The promise, where one is
   * returned, settles once the store has looked for the requests that began in this turn of the event loop, all at
   * once, after the turn has read them: a request that waits for it before its calls has them check nothing more.
   */
  beginRequest?(): Promise<void> | undefined;
  readonly tokens: TokenRepository;
  /** Webhook subscriptions and the outbox of their deliveries. */
  readonly webhooks: WebhookRepository;
  /** Applies pending migrations; returns the versions it applied. Safe to call when up to date. */
  migrate(): Promise<number[]>;
  /** Resolves when the database answers a trivial query; rejects otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
