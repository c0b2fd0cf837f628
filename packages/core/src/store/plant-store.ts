// What the handlers need from a database: the plants and the answers kept for Idempotency-Keys, with no HTTP in
// sight. The server's Store (store.ts there) adds tokens, webhooks and the engine's life cycle to it; the SDK's
// testing kit runs the handlers over the memory engine (memory-plants.ts). Ids are bigint throughout so no int64 is
// ever rounded; engines store them as 64-bit integers.
import type { Written } from './written.js';

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

/** Each write answers Written (written.ts): the only way to make its `true` is to apply the write's effect. */
export interface PlantRepository {
  /**
   * Inserts the plant for `owner`, and in the same transaction whatever the engine keeps beside it (the server's
   * engines: one webhook delivery per matching subscription, the outbox). Returns false, and changes nothing, when
   * `owner` already has that id.
   */
  create(owner: string, plant: StoredPlant): Promise<Written<boolean>>;
  /**
   * The same with an Idempotency-Key `claim`: when the owner holds no live answer to the key, creates as `create`
   * does and keeps the answer (200 or 409) with the key in the same transaction, returning true or false. When the
   * key holds an answer already, changes nothing and returns that answer (the caller compares fingerprints).
   */
  createOnce(owner: string, plant: StoredPlant, claim: IdempotencyClaim): Promise<Written<boolean | KeptAnswer>>;
  /**
   * The owner's plants with id greater than `after` (or from the start), ascending by id. The database builds the
   * JSON itself: no per-row JavaScript objects on the hot read path.
   */
  list(owner: string, options: { limit: number; after?: bigint }): Promise<PlantPage>;
  /** Deletes the owner's plant. Returns false when the owner has no plant with that id. */
  delete(owner: string, id: bigint): Promise<Written<boolean>>;
}

/** The part of a store the handlers run on. */
export interface PlantStore {
  readonly plants: PlantRepository;
  /** The answers kept for Idempotency-Keys (kept by `plants.createOnce`, or `remember` for a 400). */
  readonly idempotency: IdempotencyRepository;
}
