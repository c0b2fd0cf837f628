// Weak ETags of GET /plants pages and If-None-Match (RFC 9110 13.1.2, weak comparison). The tag is the owner's data
// version (moved by every create and delete, in the write's transaction) and a hash of the owner and the query, so it
// changes with the owner's data and differs between queries and between principals. Cheap: no crypto, no I/O.
import type { PlantPage } from '../store/plant-store.js';

// FNV-1a, two 32-bit lanes with different offsets: 64 bits of spread for telling queries and principals apart.
function hash64(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x9e3779b9;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    a = Math.imul(a ^ code, 0x01000193);
    b = Math.imul(b ^ code, 0x01000193 + 2);
  }
  return (a >>> 0).toString(16).padStart(8, '0') + (b >>> 0).toString(16).padStart(8, '0');
}

// Computed once per page answered: getPlants keeps the tag on the page itself (get-plants.ts). A WeakMap from page to
// tag, tried before, gave every major collection an ephemeron table of thousands of pages to mark (6-13 ms of its
// pause).
/** The weak ETag of `page`, answered to `owner` for the query (`limit`, `after`). */
export function entityTagOf(owner: string, page: PlantPage, limit: number, after: bigint | undefined): string {
  return `W/"${page.version}-${hash64(`${owner}\u0000${limit}\u0000${after ?? ''}`)}"`;
}

/** True when an If-None-Match header names `tag` (weak comparison) or is `*`. */
export function noneMatch(header: string | undefined, tag: string): boolean {
  if (header === undefined) return false;
  const opaque = tag.startsWith('W/') ? tag.slice(2) : tag;
  for (const part of header.split(',')) {
    const candidate = part.trim();
    if (candidate === '*') return true;
    if ((candidate.startsWith('W/') ? candidate.slice(2) : candidate) === opaque) return true;
  }
  return false;
}
