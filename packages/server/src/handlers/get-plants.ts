// getPlants: one page of the caller's plants in ascending id order, with a Link to the next page when more follow.
// The cursor codec and the Link builder are the contract's, shared with the SDK's testing kit.
import { ApiError, CURSOR_NOT_ISSUED_MESSAGE, decodeCursor, nextPageLink } from '@plant-store/contract';
import type { PlantPage } from '../store/store.js';
import type { Handler } from './handler.js';

/** The id after which the next page starts; a 400 for anything this service did not issue. */
function afterCursor(cursor: string): bigint {
  const id = decodeCursor(cursor);
  if (id === undefined) throw new ApiError(400, CURSOR_NOT_ISSUED_MESSAGE);
  return id;
}

// A cached page is answered many times: its Link is built once, with the page (the route path is the same each time).
const links = new WeakMap<PlantPage, string>();

export const getPlants: Handler<'getPlants'> = async ({ principal, query, path }, { store }) => {
  // Validation has applied the contract's default (openapi.yaml, parameter `limit`), so limit is always set here.
  const limit = query.limit as number;
  const after = query.cursor === undefined ? undefined : afterCursor(query.cursor);
  const page = await store.plants.list(principal.subject, after === undefined ? { limit } : { limit, after });
  const headers: Record<string, string> = {};
  if (page.hasMore && page.lastId !== undefined) {
    let link = links.get(page);
    if (link === undefined) {
      link = nextPageLink(path, limit, page.lastId);
      links.set(page, link);
    }
    headers.link = link;
  }
  return { status: 200, json: page.json, headers };
};
