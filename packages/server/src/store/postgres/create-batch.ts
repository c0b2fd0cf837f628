// Group commit for PostgreSQL creates: the creates that arrive in the same turn of the event loop go to the database
// as one statement (one round trip, one commit, one NOTIFY per owner), and each request is answered only once that
// statement has committed. Conflicts stay exact per row: a duplicate of an existing row, or of an earlier create in
// the same batch, is reported as not created. A create with an Idempotency-Key that repeats an earlier create's id or
// key in the same batch waits for the next batch instead, so that its own answer is decided (and kept) by the database.

import { unchanged, type Written } from '@plant-store/core';
import type { IdempotencyClaim, StoredPlant } from '../store.js';

/** What one batch statement did: the `owner\u0000id` keys it inserted, and the `owner\u0000key` keys it claimed. */
export interface BatchResult {
  inserted: Set<string>;
  /** The status each claimed key keeps (200 or 409). */
  claimed: Map<string, number>;
  /** Each owner's data version after the batch. */
  versions: Map<string, string>;
}

/** A create of the batch: the plant, and its Idempotency-Key claim if it has one. */
export interface BatchRow {
  owner: string;
  plant: StoredPlant;
  claim?: IdempotencyClaim | undefined;
}

/** Runs one batch statement; resolves with what it inserted and the keys it claimed. */
export type InsertBatch = (rows: BatchRow[]) => Promise<BatchResult>;

/** Applies the effect of a committed batch's creates of one owner's plants (`ids`, moving it to `version`). */
export type ApplyCreates = (owner: string, ids: bigint[], version: string) => Written<true>;

/**
 * A claimed create's outcome: created, not created (409), `'taken'` when the key held an answer already, or
 * `'raced'` when the key was kept with 200 but a create committed meanwhile took the id (the kept answer must become
 * the 409 it really was).
 */
export type BatchOutcome = Written<boolean> | 'taken' | 'raced';

interface Pending {
  owner: string;
  plant: StoredPlant;
  claim: IdempotencyClaim | undefined;
  resolve: (outcome: BatchOutcome) => void;
  reject: (error: unknown) => void;
}

export const rowKey = (owner: string, id: bigint | string) => `${owner}\u0000${id}`;

export class CreateBatch {
  readonly #insert: InsertBatch;
  readonly #apply: ApplyCreates;
  readonly #maxBatch: number;
  #queue: Pending[] = [];
  #scheduled = false;

  constructor(insert: InsertBatch, apply: ApplyCreates, maxBatch = 256) {
    this.#insert = insert;
    this.#apply = apply;
    this.#maxBatch = maxBatch;
  }

  /** Resolves true once the row is committed, false when the owner already has that id. */
  create(owner: string, plant: StoredPlant): Promise<Written<boolean>> {
    return this.#enqueue(owner, plant, undefined) as Promise<Written<boolean>>;
  }

  /** The same, keeping the answer with `claim`'s key; `'taken'` when the key already held an answer. */
  createOnce(owner: string, plant: StoredPlant, claim: IdempotencyClaim): Promise<BatchOutcome> {
    return this.#enqueue(owner, plant, claim);
  }

  #enqueue(owner: string, plant: StoredPlant, claim: IdempotencyClaim | undefined): Promise<BatchOutcome> {
    return new Promise<BatchOutcome>((resolve, reject) => {
      this.#queue.push({ owner, plant, claim, resolve, reject });
      this.#schedule();
    });
  }

  #schedule(): void {
    if (this.#queue.length >= this.#maxBatch) this.#flush();
    else if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(() => this.#flush());
    }
  }

  #flush(): void {
    this.#scheduled = false;
    const batch = this.#queue;
    if (batch.length === 0) return;
    this.#queue = [];
    // The first create of a key goes to the database; later ones in the batch conflict with it whatever happens,
    // except claimed ones, which go to the next batch (their answer must be kept with their key).
    const first = new Map<string, Pending>();
    const keys = new Set<string>();
    const deferred = new Set<Pending>();
    for (const item of batch) {
      const key = rowKey(item.owner, item.plant.id);
      const claimKey = item.claim ? rowKey(item.owner, item.claim.key) : undefined;
      if (item.claim && (first.has(key) || keys.has(claimKey!))) deferred.add(item);
      else if (!first.has(key)) {
        first.set(key, item);
        if (claimKey) keys.add(claimKey);
      }
    }
    const rows = [...first.values()];
    this.#insert(rows.map(({ owner, plant, claim }) => ({ owner, plant, claim }))).then(
      ({ inserted, claimed, versions }) => {
        // The new plants reach the caches as soon as the batch has committed, before any of its creates is answered.
        const ids = new Map<string, bigint[]>();
        for (const { owner, plant } of rows) {
          if (inserted.has(rowKey(owner, plant.id))) ids.set(owner, [...(ids.get(owner) ?? []), plant.id]);
        }
        const written = new Map<string, Written<true>>();
        for (const [owner, created] of ids) written.set(owner, this.#apply(owner, created, versions.get(owner)!));
        for (const item of batch) {
          if (deferred.has(item)) continue;
          const key = rowKey(item.owner, item.plant.id);
          const created = (first.get(key) === item && inserted.has(key) && written.get(item.owner)) || unchanged(false);
          if (item.claim) {
            const kept = claimed.get(rowKey(item.owner, item.claim.key));
            item.resolve(kept === undefined ? 'taken' : kept === 200 && !created ? 'raced' : created);
          } else item.resolve(created);
        }
      },
      (error: unknown) => {
        for (const item of batch) if (!deferred.has(item)) item.reject(error);
      },
    );
    if (deferred.size > 0) {
      this.#queue.push(...deferred);
      this.#schedule();
    }
  }
}
