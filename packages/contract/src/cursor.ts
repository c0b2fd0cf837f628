// Paging of GET /plants: the opaque cursor naming the last id of a page, and the RFC 8288 link to the next page.
// The service issues and reads them, and the testing kit runs the very same code. No Node or DOM APIs beyond
// btoa/atob, which every JavaScript runtime has.
import { toInt64 } from './int64.js';

const PREFIX = 'v1:';

/** What a client is told for a cursor this service did not issue. */
export const CURSOR_NOT_ISSUED_MESSAGE =
  'query parameter "cursor" is not a cursor this service issued; follow the URL of the Link rel="next" header';

/** The cursor naming `lastId`; tests forge cursors with it. */
export function encodeCursor(lastId: bigint): string {
  return btoa(`${PREFIX}${lastId}`).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** The id after which the next page starts; undefined for anything this service did not issue. */
export function decodeCursor(cursor: string): bigint | undefined {
  let text = '';
  try {
    text = atob(cursor.replace(/-/g, '+').replace(/_/g, '/'));
  } catch {
    return undefined;
  }
  // The same exact int64 reading as ids in paths: decimal text within the signed 64-bit range.
  const id = text.startsWith(PREFIX) ? toInt64(text.slice(PREFIX.length), true) : undefined;
  return id === undefined ? undefined : BigInt(id);
}

/** The Link header value pointing at the page after `lastId`. */
export function nextPageLink(path: string, limit: number, lastId: bigint): string {
  return `<${path}?limit=${limit}&cursor=${encodeCursor(lastId)}>; rel="next"`;
}
