// getPlants: one page of the caller's plants in ascending id order, with a Link to the next page when more follow,
// and a weak ETag: If-None-Match naming it is answered 304 with no body. The cursor codec and the Link builder are the
// contract's.
import { ApiError, CURSOR_NOT_ISSUED_MESSAGE, decodeCursor, nextPageLink } from '@plant-store/contract';
import type { PlantPage } from '../store/plant-store.js';
import { entityTagOf, noneMatch } from './entity-tag.js';
import type { Handler } from './handler.js';

/** The id after which the next page starts; a 400 for anything this service did not issue. */
function afterCursor(cursor: string): bigint {
  const id = decodeCursor(cursor);
  if (id === undefined) throw new ApiError(400, CURSOR_NOT_ISSUED_MESSAGE);
  return id;
}

// A page's answer headers (its ETag, its Link), kept on the page the first time it is answered: a cached page is the
// same object on every read until a write replaces it, and answered alike each time (the same owner, limit, cursor
// and route). Checked against the page's version too: a cache that moves a page on to a new version copies it, this
// property included. No WeakMap (see entity-tag.ts): a property, gone with the page. Nothing changes the headers.
const ANSWERED = Symbol('answer headers');
interface Answered {
  version: string;
  owner: string;
  limit: number;
  after: bigint | undefined;
  path: string;
  headers: Record<string, string>;
}

function answerHeaders(owner: string, page: PlantPage, limit: number, after: bigint | undefined, path: string) {
  const kept = (page as { [ANSWERED]?: Answered })[ANSWERED];
  if (
    kept &&
    kept.version === page.version &&
    kept.owner === owner &&
    kept.limit === limit &&
    kept.after === after &&
    kept.path === path
  ) {
    return kept.headers;
  }
  const headers: Record<string, string> = { etag: entityTagOf(owner, page, limit, after) };
  if (page.hasMore && page.lastId !== undefined) headers.link = nextPageLink(path, limit, page.lastId);
  (page as { [ANSWERED]?: Answered })[ANSWERED] = { version: page.version, owner, limit, after, path, headers };
  return headers;
}

export const getPlants: Handler<'getPlants'> = async ({ principal, query, path, headers }, { store }) => {
  // Validation has applied the contract's default (openapi.yaml, parameter `limit`), so limit is always set here.
  const limit = query.limit as number;
  const after = query.cursor === undefined ? undefined : afterCursor(query.cursor);
  const page = await store.plants.list(principal.subject, after === undefined ? { limit } : { limit, after });
  const answer = answerHeaders(principal.subject, page, limit, after, path);
  if (noneMatch(headers['if-none-match'], answer.etag!)) return { status: 304, headers: answer, body: undefined };
  return { status: 200, json: page.body, headers: answer };
};
