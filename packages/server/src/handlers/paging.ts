// Paging of GET /plants: an opaque cursor naming the last id of a page, and the RFC 8288 link to the next page.
import { ApiError, toInt64 } from '@plant-store/contract';

const PREFIX = 'v1:';

/** The cursor naming `lastId`; tests forge cursors with it. */
export function encodeCursor(lastId: bigint): string {
  return Buffer.from(`${PREFIX}${lastId}`, 'utf8').toString('base64url');
}

/** The id after which the next page starts; a 400 for anything this service did not issue. */
export function decodeCursor(cursor: string): bigint {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  // The same exact int64 reading as ids in paths: decimal text within the signed 64-bit range.
  const id = text.startsWith(PREFIX) ? toInt64(text.slice(PREFIX.length), true) : undefined;
  if (id !== undefined) return BigInt(id);
  throw new ApiError(
    400,
    'query parameter "cursor" is not a cursor this service issued; follow the URL of the Link rel="next" header',
  );
}

/** The Link header value pointing at the page after `lastId`. */
export function nextPageLink(path: string, limit: number, lastId: bigint): string {
  return `<${path}?limit=${limit}&cursor=${encodeCursor(lastId)}>; rel="next"`;
}
