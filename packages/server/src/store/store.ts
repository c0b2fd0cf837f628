// The persistence boundary: what the service needs from a database, with no HTTP or Fastify in sight.
// Ids are bigint throughout so no int64 is ever rounded; implementations store them as 64-bit integers.

import type { Scope } from '@plant-store/contract';

/** Thrown by a store when its database cannot be reached; answered with 503 so clients retry. */
export class StoreUnavailableError extends Error {
  override name = 'StoreUnavailableError';
}

export interface StoredPlant {
  id: bigint;
  name: string;
  tag?: string;
}

/** One page of an owner's plants, already in the shape the API answers with. */
export interface PlantPage {
  /**
   * A JSON array of at most `limit` Plant objects ({name, tag?}, no id), ascending by id, as UTF-8 bytes: a cached
   * page is sent as it is (no encoding per answer) and weighs what it holds, outside the JavaScript heap.
   */
  body: Uint8Array;
  /** The id of the last plant on the page, where the next page starts after; undefined for an empty page. */
  lastId: bigint | undefined;
  /** True when at least one more plant follows the last one returned. */
  hasMore: boolean;
  /**
   * The owner's data version when the page was read (in the same snapshot): moved by every create and delete of that
   * owner, in the write's own transaction, so every instance reads the same value. The ETag is derived from it.
   */
  version: string;
}

/** How long the answer to an Idempotency-Key is kept: 24 hours. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/** An Idempotency-Key as a create claims it: the key, the request's fingerprint and the answers it may keep. */
export interface IdempotencyClaim {
  key: string;
  /** A digest of the request body: a repeat with another fingerprint is refused (422), not replayed. */
  fingerprint: string;
  /** The answer bodies to keep with the key: `created` (200) or `conflict` (409), whichever the create turns out. */
  created: string;
  conflict: string;
  /** When the claim is made (ms since the epoch); keys older than IDEMPOTENCY_TTL_MS count as unused. */
  now: number;
}

/** The first answer given to an Idempotency-Key, as kept. */
export interface KeptAnswer {
  fingerprint: string;
  status: number;
  /** The answer's JSON body, exactly as sent the first time. */
  body: string;
}

export interface IdempotencyRepository {
  /**
   * Keeps `answer` for the key unless the key already holds a live answer; returns the answer kept before, if any.
   */
  remember(owner: string, key: string, answer: KeptAnswer, now: number): Promise<KeptAnswer | undefined>;
  /**
   * Bounded clean-up: deletes at most `limit` keys older than `before`, then at most `limit` of the oldest keys of
   * principals holding more than `maxPerOwner`. Returns how many keys it deleted.
   */
  sweep(before: number, maxPerOwner: number, limit: number): Promise<number>;
}

export interface PlantRepository {
  /**
   * Inserts the plant for `owner`, and in the same transaction one webhook delivery per matching subscription (the
   * outbox). Returns false, and changes nothing, when `owner` already has that id.
   */
  create(owner: string, plant: StoredPlant): Promise<boolean>;
  /**
   * The same with an Idempotency-Key `claim`: when the owner holds no live answer to the key, creates as `create`
   * does and keeps the answer (200 or 409) with the key in the same transaction, returning true or false. When the
   * key holds an answer already, changes nothing and returns that answer (the caller compares fingerprints).
   */
  createOnce(owner: string, plant: StoredPlant, claim: IdempotencyClaim): Promise<boolean | KeptAnswer>;
  /**
   * The owner's plants with id greater than `after` (or from the start), ascending by id. The database builds the
   * JSON itself: no per-row JavaScript objects on the hot read path.
   */
  list(owner: string, options: { limit: number; after?: bigint }): Promise<PlantPage>;
  /** Deletes the owner's plant. Returns false when the owner has no plant with that id. */
  delete(owner: string, id: bigint): Promise<boolean>;
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
   * 'unknown' / 'disabled' when there is no such delivery or its subscription is gone or disabled.
   */
  replay(id: number, now: number): Promise<number | 'unknown' | 'disabled'>;
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

export interface Store {
  /** Which engine backs this store ('sqlite', 'postgres', 'memory': its name in store/open-store.ts), for readiness,
   * metrics and tests. */
  readonly kind: string;
  /** The page cache's counters, where the store has one. */
  cacheStats?(): CacheStats;
  /** The connection pool's usage, where the store has one. */
  poolStats?(): PoolStats;
  /**
   * A request has begun. A store whose caches are checked against the database before they answer (SQLite: another
   * process may have committed) checks once for the request's calls rather than once per call, until the next
   * request begins or the event loop's turn ends. Calls outside requests check each time.
   */
  beginRequest?(): void;
  readonly plants: PlantRepository;
  readonly tokens: TokenRepository;
  /** Webhook subscriptions and the outbox of their deliveries. */
  readonly webhooks: WebhookRepository;
  /** The answers kept for Idempotency-Keys (kept by `plants.create` with a claim, or `remember` for a 400). */
  readonly idempotency: IdempotencyRepository;
  /** Applies pending migrations; returns the versions it applied. Safe to call when up to date. */
  migrate(): Promise<number[]>;
  /** Resolves when the database answers a trivial query; rejects otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
