// The stores' cache of plant pages, by owner and (limit, cursor), kept until a write could alter a page (pageChangedBy
// in write-effect.ts). Bounded in bytes (clients choose limit and cursor), evicted as CLOCK does; a hit only marks its
// entry, since reordering the Map on each hit allocated. It holds the PostgreSQL store's tokens too. An entry is found
// by its owner, then its key: no string joining the two is built per lookup (a request's key is a new string, and a
// joined one was built, flattened and hashed on every get).
import { effectApplied, type Written } from '@plant-store/core';
import type { CacheStats, PlantPage } from '../store.js';
import { type PlantChange, pageChangedBy, type WriteEffect } from './write-effect.js';

/** The page cache's default bound, in bytes (PAGE_CACHE_BYTES), on every engine. */
export const DEFAULT_PAGE_CACHE_BYTES = 12 * 1024 * 1024;

/** What an entry costs besides its JSON text and key: the objects around them, the maps' slots. */
const ENTRY_OVERHEAD_BYTES = 256;

/**
 * What a page costs: its JSON bytes, and the answer headers getPlants keeps on a page once it answers it (its ETag and
 * Link, core's handlers/get-plants.ts: about 490 bytes of heap a page, measured over 200,000 pages).
 */
const ANSWER_HEADERS_BYTES = 512;
const pageBytes = (page: PlantPage) => page.body.byteLength + ANSWER_HEADERS_BYTES;

/** Whether decimal version `a` is older than `b`: the shorter is the smaller, else the first in text order. */
const olderThan = (a: string, b: string) => a.length < b.length || (a.length === b.length && a < b);

/** A cached value's version, where it has one (a PlantPage); the tokens the PostgreSQL store caches have none. */
const versionOf = (value: unknown) => (value as Partial<PlantPage>).version;

interface Entry<Value> {
  owner: string;
  key: string;
  /** The value as last handed out; a page's `version` may lag `version` below until the next get. */
  page: Value;
  /** The page's current version (afterWrite moves it on); the page object gets it at the next get, not at each write. */
  version: string | undefined;
  bytes: number;
  /** The cursor the page starts after, for pageChangedBy. */
  after: bigint | undefined;
  /** Used since eviction last passed over it (CLOCK's reference bit). */
  used: boolean;
}

export class PageCache<Value = PlantPage> {
  // Every entry; its order is the order eviction passes over them: the first is the next candidate.
  readonly #pages = new Set<Entry<Value>>();
  /** Each owner's entries (the same objects as in #pages), by key: a write visits its owner's pages without a lookup. */
  readonly #byOwner = new Map<string, Map<string, Entry<Value>>>();
  /** Per owner, a version no cached page of the owner's is older than, where known: oldestVersion in O(1). */
  readonly #floors = new Map<string, string>();
  readonly #maxBytes: number;
  readonly #sizeOf: (value: Value) => number;
  #bytes = 0;
  #hits = 0;
  #misses = 0;

  constructor(
    maxBytes: number = DEFAULT_PAGE_CACHE_BYTES,
    sizeOf: (value: Value) => number = pageBytes as unknown as (value: Value) => number,
  ) {
    this.#maxBytes = maxBytes;
    this.#sizeOf = sizeOf;
  }

  /** Whether a value is cached under the key (of any version); neither a hit nor a miss. */
  has(owner: string, key: string): boolean {
    return this.#byOwner.get(owner)?.has(key) ?? false;
  }

  /** The cached value, when there is one and `usable` (default: any) accepts it; anything else counts as a miss. */
  get(owner: string, key: string, usable?: (value: Value) => boolean): Value | undefined {
    const entry = this.#byOwner.get(owner)?.get(key);
    if (!entry) {
      this.#misses++;
      return undefined;
    }
    if (entry.version !== undefined && versionOf(entry.page) !== entry.version) {
      entry.page = { ...entry.page, version: entry.version };
    }
    if (usable && !usable(entry.page)) {
      this.#misses++;
      return undefined;
    }
    this.#hits++;
    entry.used = true;
    return entry.page;
  }

  set(owner: string, key: string, page: Value, after?: bigint): void {
    // Counted as the owner and key joined, as a string of both (UTF-16) would hold them.
    const bytes = this.#sizeOf(page) + 2 * (owner.length + 1 + key.length) + ENTRY_OVERHEAD_BYTES;
    if (bytes > this.#maxBytes) return;
    const replaced = this.#byOwner.get(owner)?.get(key);
    if (replaced) this.#remove(replaced);
    while (this.#bytes + bytes > this.#maxBytes) {
      const candidate = this.#pages.values().next().value;
      if (candidate === undefined) break;
      if (candidate.used) {
        // Its second chance: behind every other entry, unmarked (each pass unmarks one, so this ends).
        candidate.used = false;
        this.#pages.delete(candidate);
        this.#pages.add(candidate);
      } else {
        this.#remove(candidate);
      }
    }
    const version = versionOf(page);
    const entry: Entry<Value> = { owner, key, page, version, bytes, after, used: false };
    this.#pages.add(entry);
    this.#bytes += bytes;
    const floor = this.#floors.get(owner);
    if (floor !== undefined && (version === undefined || olderThan(version, floor))) this.#floors.delete(owner);
    let entries = this.#byOwner.get(owner);
    if (!entries) {
      entries = new Map();
      this.#byOwner.set(owner, entries);
    }
    entries.set(key, entry);
  }

  /** Forgets the owner's pages, after a write to that owner's plants. */
  forget(owner: string): void {
    for (const entry of [...(this.#byOwner.get(owner)?.values() ?? [])]) this.#remove(entry);
  }

  /**
   * After a write moved the owner's version from `from` to `to` by `effect` on `ids`: a page at `from` it cannot have
   * altered gets `to` (its ETag must move), every other older page is forgotten. Its answer is the write's (Written).
   */
  afterWrite(
    this: PageCache<PlantPage>,
    owner: string,
    from: string,
    to: string,
    effect: WriteEffect,
    ids: readonly bigint[],
  ): Written<true> {
    const entries = this.#byOwner.get(owner);
    if (!entries) return effectApplied();
    const changed = (page: PlantPage, after: bigint | undefined) =>
      ids.some((id) => pageChangedBy(effect, id, page, after));
    // A Map may lose the entry being visited (#remove) without upsetting the iteration.
    for (const entry of entries.values()) {
      if (entry.version === from && !changed(entry.page, entry.after)) entry.version = to;
      else if (olderThan(entry.version!, to)) this.#remove(entry);
    }
    if (this.#byOwner.has(owner)) this.#floors.set(owner, to);
    return effectApplied();
  }

  /**
   * Brings the owner's pages older than `to` up to it in one pass over `changes` (the owner's writes in version order):
   * a page is kept at `to` when every change since its version is listed and none can have altered it, else forgotten.
   */
  replay(this: PageCache<PlantPage>, owner: string, changes: readonly PlantChange[], to: bigint): void {
    const entries = this.#byOwner.get(owner);
    if (!entries) return;
    const version = String(to);
    // The first change from which the list runs to `to` with no gap: a page older than it cannot be carried.
    let unbroken = 0;
    for (let i = 1; i < changes.length; i++) {
      if (changes[i]!.version !== changes[i - 1]!.version + 1n) unbroken = i;
    }
    if (changes.at(-1)?.version !== to) unbroken = changes.length;
    // Where a page version's changes start (-1: not all listed), found once per run of pages at one version (an
    // owner's pages mostly share one).
    let at: string | undefined;
    let start = -1;
    for (const entry of entries.values()) {
      if (!olderThan(entry.version!, version)) continue;
      if (entry.version !== at) {
        at = entry.version!;
        const index = unbroken < changes.length ? unbroken + Number(BigInt(at) + 1n - changes[unbroken]!.version) : -1;
        start = index >= unbroken && index < changes.length ? index : -1;
      }
      let kept = start >= 0;
      for (let i = start; kept && i < changes.length; i++) {
        kept = !pageChangedBy(changes[i]!.effect, changes[i]!.id, entry.page, entry.after);
      }
      if (kept) entry.version = version;
      else this.#remove(entry);
    }
    if (this.#byOwner.has(owner)) this.#floors.set(owner, version);
  }

  /**
   * A version none of the owner's cached pages is older than: the oldest one's, or a floor below it that a write or
   * catch-up set (every page it kept has that version or a newer one); undefined when none is cached.
   */
  oldestVersion(this: PageCache<PlantPage>, owner: string): bigint | undefined {
    // Versions are compared as decimal text, not as BigInt: this runs on every write and every owner check.
    const entries = this.#byOwner.get(owner);
    if (!entries) return undefined;
    let oldest = this.#floors.get(owner);
    if (oldest === undefined) {
      for (const { version } of entries.values()) {
        if (version !== undefined && (oldest === undefined || olderThan(version, oldest))) oldest = version;
      }
      if (oldest !== undefined) this.#floors.set(owner, oldest);
    }
    return oldest === undefined ? undefined : BigInt(oldest);
  }

  /** Lookups answered and missed since the cache was made, and what it holds now. */
  stats(): CacheStats {
    return { hits: this.#hits, misses: this.#misses, bytes: this.#bytes, entries: this.#pages.size };
  }

  /** The bytes the cached entries are counted as, at most the bound given. */
  get bytes(): number {
    return this.#bytes;
  }

  clear(): void {
    this.#pages.clear();
    this.#byOwner.clear();
    this.#floors.clear();
    this.#bytes = 0;
  }

  #remove(entry: Entry<Value>): void {
    if (!this.#pages.delete(entry)) return;
    this.#bytes -= entry.bytes;
    const entries = this.#byOwner.get(entry.owner);
    entries?.delete(entry.key);
    if (entries?.size === 0) {
      this.#byOwner.delete(entry.owner);
      this.#floors.delete(entry.owner);
    }
  }
}
