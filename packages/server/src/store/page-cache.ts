// The SQLite store's cache of plant pages, by owner and (limit, cursor): a page is built once and answered from
// memory until that owner's plants change. Bounded: past MAX_CACHED_PAGES it starts over rather than grow.
import type { PlantPage } from './store.js';

const MAX_CACHED_PAGES = 10_000;

export class PageCache {
  readonly #pages = new Map<string, Map<string, PlantPage>>();
  #size = 0;

  get(owner: string, key: string): PlantPage | undefined {
    return this.#pages.get(owner)?.get(key);
  }

  set(owner: string, key: string, page: PlantPage): void {
    if (this.#size >= MAX_CACHED_PAGES) this.clear();
    let ownerPages = this.#pages.get(owner);
    if (!ownerPages) {
      ownerPages = new Map();
      this.#pages.set(owner, ownerPages);
    }
    if (!ownerPages.has(key)) this.#size += 1;
    ownerPages.set(key, page);
  }

  /** Forgets the owner's pages, after a write to that owner's plants. */
  forget(owner: string): void {
    this.#size -= this.#pages.get(owner)?.size ?? 0;
    this.#pages.delete(owner);
  }

  clear(): void {
    this.#pages.clear();
    this.#size = 0;
  }
}
