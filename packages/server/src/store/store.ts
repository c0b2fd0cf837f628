// The persistence boundary: what the service needs from a database, with no HTTP or Fastify in sight.
// Ids are bigint throughout so no int64 is ever rounded; implementations store them as 64-bit integers.

import type { Scope } from '@plant-store/contract';

export interface StoredPlant {
  id: bigint;
  name: string;
  tag?: string;
}

/** One page of an owner's plants, already in the shape the API answers with. */
export interface PlantPage {
  /** A JSON array of at most `limit` Plant objects ({name, tag?}, no id), ascending by id. */
  json: string;
  /** The id of the last plant on the page, where the next page starts after; undefined for an empty page. */
  lastId: bigint | undefined;
  /** True when at least one more plant follows the last one returned. */
  hasMore: boolean;
}

export interface PlantRepository {
  /** Inserts the plant for `owner`. Returns false, and changes nothing, when `owner` already has that id. */
  create(owner: string, plant: StoredPlant): Promise<boolean>;
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
  list(): Promise<TokenRecord[]>;
  /** Marks the token revoked. Returns false when no token has that id. */
  revoke(id: string, at: Date): Promise<boolean>;
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
  /** Which engine backs this store ('sqlite' or 'postgres'), for readiness and tests. */
  readonly kind: 'sqlite' | 'postgres';
  /** The page cache's counters, where the store has one. */
  cacheStats?(): CacheStats;
  /** The connection pool's usage, where the store has one. */
  poolStats?(): PoolStats;
  readonly plants: PlantRepository;
  readonly tokens: TokenRepository;
  /** Applies pending migrations; returns the versions it applied. Safe to call when up to date. */
  migrate(): Promise<number[]>;
  /** Resolves when the database answers a trivial query; rejects otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
