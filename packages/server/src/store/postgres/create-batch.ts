// Group commit for PostgreSQL creates: the creates that arrive in the same turn of the event loop go to the database
// as one statement (one round trip, one commit, one NOTIFY per owner), and each request is answered only once that
// statement has committed. Conflicts stay exact per row: a duplicate of an existing row, or of an earlier create in
// the same batch, is reported as not created.
import type { StoredPlant } from '../store.js';

/** Runs one batch statement; resolves with the `owner\u0000id` keys it inserted. */
export type InsertBatch = (rows: { owner: string; plant: StoredPlant }[]) => Promise<Set<string>>;

interface Pending {
  owner: string;
  plant: StoredPlant;
  resolve: (created: boolean) => void;
  reject: (error: unknown) => void;
}

export const rowKey = (owner: string, id: bigint | string) => `${owner}\u0000${id}`;

export class CreateBatch {
  readonly #insert: InsertBatch;
  readonly #maxBatch: number;
  #queue: Pending[] = [];
  #scheduled = false;

  constructor(insert: InsertBatch, maxBatch = 256) {
    this.#insert = insert;
    this.#maxBatch = maxBatch;
  }

  /** Resolves true once the row is committed, false when the owner already has that id. */
  create(owner: string, plant: StoredPlant): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => {
      this.#queue.push({ owner, plant, resolve, reject });
      if (this.#queue.length >= this.#maxBatch) this.#flush();
      else if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(() => this.#flush());
      }
    });
  }

  #flush(): void {
    this.#scheduled = false;
    const batch = this.#queue;
    if (batch.length === 0) return;
    this.#queue = [];
    // The first create of a key goes to the database; later ones in the batch conflict with it whatever happens.
    const first = new Map<string, Pending>();
    for (const item of batch) {
      const key = rowKey(item.owner, item.plant.id);
      if (!first.has(key)) first.set(key, item);
    }
    this.#insert([...first.values()]).then(
      (inserted) => {
        for (const item of batch) {
          const key = rowKey(item.owner, item.plant.id);
          item.resolve(first.get(key) === item && inserted.has(key));
        }
      },
      (error: unknown) => {
        for (const item of batch) item.reject(error);
      },
    );
  }
}
