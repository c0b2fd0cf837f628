// The memory engine of the plants and the answers kept for Idempotency-Keys, in plain Maps: the server's memory
// engine (DATABASE_URL=memory:) is built on it, and the SDK's testing kit runs the handlers over it. Each call is one
// synchronous step, so concurrent callers never interleave inside it (the other engines' atomicity).
import { MAX_IDEMPOTENCY_KEYS_PER_PRINCIPAL } from '../idempotency/idempotency-key.js';
import {
  IDEMPOTENCY_TTL_MS,
  type KeptAnswer,
  type PlantPage,
  type PlantStore,
  type StoredPlant,
} from './plant-store.js';
import { effectApplied, unchanged } from './written.js';

const utf8 = new TextEncoder();

type KeptKey = KeptAnswer & { at: number };

/** The engine, and what tests and seeding need besides the repositories. */
export interface MemoryPlants extends PlantStore {
  /** Stores `plant` for `owner` at once, replacing the owner's plant with its id if there is one. */
  put(owner: string, plant: StoredPlant): void;
  /** The owner's plants as stored, ascending by id. */
  plantsOf(owner: string): StoredPlant[];
  /** Forgets every plant and every kept answer. */
  clear(): void;
}

const ascending = (a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0);

/** A new, empty engine in this process's memory. */
export function openMemoryPlants(): MemoryPlants {
  const owners = new Map<string, Map<bigint, StoredPlant>>();
  // Per owner: the data version every create and delete moves (the ETag's), and the answers kept for keys, oldest
  // first (a Map iterates in insertion order, and a key is moved to the end whenever it is written).
  const versions = new Map<string, number>();
  const keys = new Map<string, Map<string, KeptKey>>();
  // The engine's one effect call: a write's `true` answer is made here, so a write that skips it does not compile.
  const touch = (owner: string) => {
    versions.set(owner, (versions.get(owner) ?? 0) + 1);
    return effectApplied();
  };
  const live = (owner: string, key: string, now: number) => {
    const found = keys.get(owner)?.get(key);
    return found && found.at > now - IDEMPOTENCY_TTL_MS ? found : undefined;
  };
  /** Keeps the key's answer as the owner's newest, forgetting the owner's oldest keys beyond the bound. */
  const keep = (owner: string, key: string, kept: KeptKey) => {
    const owned = keys.get(owner) ?? new Map<string, KeptKey>();
    keys.set(owner, owned);
    owned.delete(key);
    owned.set(key, kept);
    for (const oldest of owned.keys()) {
      if (owned.size <= MAX_IDEMPOTENCY_KEYS_PER_PRINCIPAL) break;
      owned.delete(oldest);
    }
  };
  const owned = (owner: string) => {
    const plants = owners.get(owner) ?? new Map<bigint, StoredPlant>();
    owners.set(owner, plants);
    return plants;
  };
  const create = (owner: string, plant: StoredPlant) => {
    const plants = owned(owner);
    if (plants.has(plant.id)) return unchanged(false);
    plants.set(plant.id, { ...plant });
    return touch(owner);
  };
  const sorted = (owner: string) => [...owned(owner).values()].sort((a, b) => ascending(a.id, b.id));
  return {
    plants: {
      async create(owner, plant) {
        return create(owner, plant);
      },
      async createOnce(owner, plant, claim) {
        const found = live(owner, claim.key, claim.now);
        if (found) return unchanged({ fingerprint: found.fingerprint, status: found.status, body: found.body });
        const created = create(owner, plant);
        keep(owner, claim.key, {
          fingerprint: claim.fingerprint,
          status: created ? 200 : 409,
          body: created ? claim.created : claim.conflict,
          at: claim.now,
        });
        return created;
      },
      async list(owner, { limit, after }): Promise<PlantPage> {
        const following = sorted(owner).filter((plant) => after === undefined || plant.id > after);
        const page = following.slice(0, limit);
        return {
          body: utf8.encode(
            JSON.stringify(page.map(({ name, tag }) => (tag === undefined ? { name } : { name, tag }))),
          ),
          lastId: page.at(-1)?.id,
          hasMore: following.length > limit,
          version: String(versions.get(owner) ?? 0),
        };
      },
      async delete(owner, id) {
        return owned(owner).delete(id) ? touch(owner) : unchanged(false);
      },
    },
    idempotency: {
      async remember(owner, key, answer, now) {
        const found = live(owner, key, now);
        if (found) return { fingerprint: found.fingerprint, status: found.status, body: found.body };
        keep(owner, key, { ...answer, at: now });
        return undefined;
      },
      async sweep(before, maxPerOwner, limit) {
        let deleted = 0;
        for (const owned of keys.values()) {
          for (const [key, entry] of owned) {
            if (deleted >= limit) return deleted;
            if (entry.at < before) {
              owned.delete(key);
              deleted++;
            }
          }
        }
        for (const owned of keys.values()) {
          for (const key of owned.keys()) {
            if (owned.size <= maxPerOwner) break;
            if (deleted >= limit) return deleted;
            owned.delete(key);
            deleted++;
          }
        }
        return deleted;
      },
    },
    put(owner, plant) {
      owned(owner).set(plant.id, { ...plant });
      touch(owner);
    },
    plantsOf(owner) {
      return sorted(owner).map((plant) => ({ ...plant }));
    },
    clear() {
      owners.clear();
      versions.clear();
      keys.clear();
    },
  };
}
