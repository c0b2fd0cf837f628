// getPlants: one page of the caller's plants in ascending id order, with a Link to the next page when more follow,
// and a weak ETag: If-None-Match naming it is answered 304 with no body. The cursor codec and the Link builder are the
// contract's.
import { ApiError, CURSOR_NOT_ISSUED_MESSAGE, decodeCursor, nextPageLink } from '@plant-store/contract';
import { entityTagOf, noneMatch } from './entity-tag.js';
import type { Handler } from './handler.js';

/** The id after which the next page starts; a 400 for anything this service did not issue. */
function afterCursor(cursor: string): bigint {
  const id = decodeCursor(cursor);
  if (id === undefined) throw new ApiError(400, CURSOR_NOT_ISSUED_MESSAGE);
  return id;
}

export const getPlants: Handler<'getPlants'> = async ({ principal, query, path, headers }, { store }) => {
  // Validation has applied the contract's default (openapi.yaml, parameter `limit`), so limit is always set here.
  const limit = query.limit as number;
  const after = query.cursor === undefined ? undefined : afterCursor(query.cursor);
  const page = await store.plants.list(principal.subject, after === undefined ? { limit } : { limit, after });
  const answer: Record<string, string> = { etag: entityTagOf(principal.subject, page, limit, after) };
  if (page.hasMore && page.lastId !== undefined) answer.link = nextPageLink(path, limit, page.lastId);
  if (noneMatch(headers['if-none-match'], answer.etag!)) return { status: 304, headers: answer, body: undefined };
  return { status: 200, json: page.body, headers: answer };
};
