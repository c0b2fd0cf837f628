// The handlers called directly, one function per operationId, on the memory engine: no Fastify, no validation, no
// database. What they answer for each path (created, conflict, pages and their Link, ETags and 304, deleted and
// unknown, Idempotency-Key first answers, replays, reuse with another body, a repeat in flight). Through the whole
// app, on every engine, the same paths are in the server's test/app/plants-api, test/app/conditional-get and
// test/idempotency/idempotency-key every-engine integration tests.
import {
  ApiError,
  decodeCursor,
  OPERATIONS,
  type OperationId,
  type PathParamsOf,
  type QueryOf,
  type RequestBodyOf,
} from '@plant-store/contract';
import { describe, expect, it } from 'vitest';
import type { Principal } from '../../src/auth/principal.js';
import { entityTagOf, noneMatch } from '../../src/handlers/entity-tag.js';
import type { HandlerInput } from '../../src/handlers/handler.js';
import { handlers } from '../../src/handlers/index.js';
import { openMemoryPlants } from '../../src/store/memory-plants.js';
import type { PlantPage, PlantStore } from '../../src/store/plant-store.js';

const store = openMemoryPlants();
const deps = () => ({ store });

const decoder = new TextDecoder();
/** A page whose JSON is `json`. */
const pageOf = (json: string, rest: Omit<PlantPage, 'body'>): PlantPage => ({
  body: new TextEncoder().encode(json),
  ...rest,
});

let owners = 0;
/** A principal of its own per test: tests share the store without seeing each other's plants. */
const principal = (): Principal => ({ subject: `owner-${++owners}`, scopes: ['read', 'write'] });

/**
 * A handler's input as the bindings give it after validation: the parts an operation declares are typed from the
 * contract; those it has none of (a body on getPlants, a query on createPlant) are typed `never` there, so absent.
 */
const input = <Op extends OperationId>(
  parts: Pick<HandlerInput<Op>, 'principal' | 'path'> & Partial<HandlerInput<Op>>,
): HandlerInput<Op> =>
  ({ body: undefined, params: undefined, query: {}, headers: {}, ...parts }) as unknown as HandlerInput<Op>;

const create = (who: Principal, body: RequestBodyOf<'createPlant'>, key?: string) =>
  handlers.createPlant(
    input<'createPlant'>({
      principal: who,
      body,
      headers: key === undefined ? {} : { 'idempotency-key': key },
      path: '/plants',
    }),
    deps(),
  );

const list = (who: Principal, query: QueryOf<'getPlants'> = {}, ifNoneMatch?: string) =>
  handlers.getPlants(
    input<'getPlants'>({
      principal: who,
      // Validation applies the contract's default limit before the handler runs.
      query: { limit: 100, ...query },
      headers: ifNoneMatch === undefined ? {} : { 'if-none-match': ifNoneMatch },
      path: '/plants',
    }),
    deps(),
  );

const remove = (who: Principal, id: PathParamsOf<'deletePlant'>['id']) =>
  handlers.deletePlant(input<'deletePlant'>({ principal: who, params: { id }, path: `/plants/${id}` }), deps());

/** The ApiError a handler call rejects with (status, message, headers), or a failure if it resolves. */
async function apiErrorOf(call: Promise<unknown>): Promise<ApiError> {
  const error = await call.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

/** The plants of a 200 page, parsed from the JSON the store built. */
function plantsOf(answer: Awaited<ReturnType<typeof list>>): unknown[] {
  expect(answer.status).toBe(200);
  if (!('json' in answer)) throw new Error('a 200 page carries its JSON');
  const json = answer.json;
  return JSON.parse(typeof json === 'string' ? json : decoder.decode(json)) as unknown[];
}

describe('createPlant', () => {
  it('answers 200 with the plant without its id, and stores it for the caller only', async () => {
    const alice = principal();
    const bob = principal();
    expect(await create(alice, { id: 1, name: 'Fern', tag: 'green' })).toEqual({
      status: 200,
      body: { name: 'Fern', tag: 'green' },
    });
    expect(await create(alice, { id: 2n, name: 'Ivy' })).toEqual({ status: 200, body: { name: 'Ivy' } });
    expect(plantsOf(await list(alice))).toEqual([{ name: 'Fern', tag: 'green' }, { name: 'Ivy' }]);
    expect(plantsOf(await list(bob))).toEqual([]);
  });

  it('refuses an id the caller already has with a 409 naming it, and another caller may take the same id', async () => {
    const alice = principal();
    await create(alice, { id: 7, name: 'Fern' });
    const conflict = await apiErrorOf(create(alice, { id: 7, name: 'Other' }));
    expect(conflict.status).toBe(409);
    expect(conflict.message).toBe('a plant with id 7 already exists; choose another id or delete that plant first');
    expect(plantsOf(await list(alice))).toEqual([{ name: 'Fern' }]);
    expect((await create(principal(), { id: 7, name: 'Bobs' })).status).toBe(200);
  });

  it('keeps ids beyond 2^53 exact', async () => {
    const alice = principal();
    const big = 2n ** 63n - 1n;
    await create(alice, { id: big, name: 'Max' });
    await create(alice, { id: big - 1n, name: 'Below' });
    expect(plantsOf(await list(alice))).toEqual([{ name: 'Below' }, { name: 'Max' }]);
    expect(await remove(alice, big)).toEqual({ status: 204, body: undefined });
    expect(plantsOf(await list(alice))).toEqual([{ name: 'Below' }]);
  });
});

describe('createPlant with an Idempotency-Key', () => {
  it('answers the first request as without a key, and a repeat with the kept answer, marked replayed', async () => {
    const alice = principal();
    expect(await create(alice, { id: 1, name: 'Fern' }, 'key-1')).toEqual({ status: 200, body: { name: 'Fern' } });
    expect(await create(alice, { id: 1, name: 'Fern' }, 'key-1')).toEqual({
      status: 200,
      json: '{"name":"Fern"}',
      headers: { 'idempotent-replayed': 'true' },
      replayed: true,
    });
    expect(plantsOf(await list(alice))).toEqual([{ name: 'Fern' }]);
  });

  it('keeps a 409 for a taken id too, and gives it again to a repeat', async () => {
    const alice = principal();
    await create(alice, { id: 1, name: 'Fern' });
    expect((await apiErrorOf(create(alice, { id: 1, name: 'Again' }, 'key-409'))).status).toBe(409);
    const replay = await create(alice, { id: 1, name: 'Again' }, 'key-409');
    expect(replay).toMatchObject({ status: 409, replayed: true, headers: { 'idempotent-replayed': 'true' } });
    expect(JSON.parse((replay as { json: string }).json)).toEqual({
      error: 409,
      message: 'a plant with id 1 already exists; choose another id or delete that plant first',
    });
  });

  it('refuses the key with another body (422) and writes nothing', async () => {
    const alice = principal();
    await create(alice, { id: 1, name: 'Fern' }, 'key-2');
    for (const other of [
      { id: 1, name: 'Ivy' },
      { id: 2, name: 'Fern' },
      { id: 1, name: 'Fern', tag: 'x' },
    ]) {
      const reused = await apiErrorOf(create(alice, other, 'key-2'));
      expect(reused.status).toBe(422);
      expect(reused.message).toMatch(/^this Idempotency-Key was already used for a request with another body/);
    }
    expect(plantsOf(await list(alice))).toEqual([{ name: 'Fern' }]);
  });

  it('keeps keys per caller: the same key from another caller is a request of its own', async () => {
    const alice = principal();
    const bob = principal();
    await create(alice, { id: 1, name: 'Fern' }, 'shared-key');
    expect(await create(bob, { id: 1, name: 'Ivy' }, 'shared-key')).toEqual({ status: 200, body: { name: 'Ivy' } });
  });

  it('answers a repeat that arrives while the first is in flight with 409 and Retry-After, untouched', async () => {
    const alice = principal();
    // The first request is held inside the store until the repeat has been answered.
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let entered = () => {};
    const inStore = new Promise<void>((resolve) => {
      entered = resolve;
    });
    let writes = 0;
    const gated: PlantStore = {
      ...store,
      plants: {
        ...store.plants,
        createOnce: async (...args: Parameters<PlantStore['plants']['createOnce']>) => {
          writes++;
          entered();
          await held;
          return store.plants.createOnce(...args);
        },
      },
    };
    const request = input<'createPlant'>({
      principal: alice,
      body: { id: 1, name: 'Fern' },
      headers: { 'idempotency-key': 'key-3' },
      path: '/plants',
    });
    const first = handlers.createPlant(request, { store: gated });
    await inStore;
    const busy = await apiErrorOf(handlers.createPlant(request, { store: gated }));
    expect(busy.status).toBe(409);
    expect(busy.message).toMatch(/^a request with this Idempotency-Key is still being processed/);
    expect(busy.headers).toEqual({ 'retry-after': '1' });
    expect(writes).toBe(1);
    release();
    expect(await first).toEqual({ status: 200, body: { name: 'Fern' } });
    // Once the first is answered, a repeat gets its kept answer.
    expect(await handlers.createPlant(request, { store: gated })).toMatchObject({ status: 200, replayed: true });
  });
});

describe('getPlants', () => {
  it('pages in id order with a Link to the next page while more follow, and none on the last', async () => {
    const alice = principal();
    for (const id of [3, -2, 10, 1]) await create(alice, { id, name: `P${id}` });
    const first = await list(alice, { limit: 2 });
    expect(plantsOf(first)).toEqual([{ name: 'P-2' }, { name: 'P1' }]);
    const link = first.headers?.link;
    expect(link).toMatch(/^<\/plants\?limit=2&cursor=[A-Za-z0-9_-]+>; rel="next"$/);
    const cursor = /cursor=([A-Za-z0-9_-]+)/.exec(link ?? '')?.[1] ?? '';
    expect(decodeCursor(cursor)).toBe(1n);
    const second = await list(alice, { limit: 2, cursor });
    expect(plantsOf(second)).toEqual([{ name: 'P3' }, { name: 'P10' }]);
    expect(second.headers?.link).toBeUndefined();
  });

  it('refuses a cursor the service did not issue with a 400', async () => {
    const error = await apiErrorOf(list(principal(), { cursor: 'not-a-cursor' }));
    expect(error.status).toBe(400);
    expect(error.message).toMatch(/cursor/);
  });

  it('tags each page with a weak ETag that a create or delete of the caller changes', async () => {
    const alice = principal();
    await create(alice, { id: 1, name: 'Fern' });
    const tag = (await list(alice)).headers?.etag ?? '';
    expect(tag).toMatch(/^W\/".+"$/);
    expect((await list(alice)).headers?.etag).toBe(tag);
    await create(alice, { id: 2, name: 'Ivy' });
    const afterCreate = (await list(alice)).headers?.etag;
    expect(afterCreate).not.toBe(tag);
    await remove(alice, 2);
    expect((await list(alice)).headers?.etag).not.toBe(afterCreate);
  });

  it('gives different queries and different callers different tags', async () => {
    const alice = principal();
    const bob = principal();
    const tags = [
      (await list(alice)).headers?.etag,
      (await list(alice, { limit: 1 })).headers?.etag,
      (await list(bob)).headers?.etag,
    ];
    expect(new Set(tags).size).toBe(3);
  });

  it('answers a page read again (the same object, as from a cache) with the same headers, and a moved one anew', async () => {
    let page = pageOf('[{"name":"Fern"}]', { lastId: 7n, hasMore: true, version: '3' });
    const cached: PlantStore = { ...store, plants: { ...store.plants, list: async () => page } };
    const read = (who: Principal, limit = 100, path = '/plants') =>
      handlers.getPlants(input<'getPlants'>({ principal: who, query: { limit }, path }), { store: cached });
    const alice = principal();
    const first = (await read(alice)).headers;
    expect(first).toEqual({
      etag: entityTagOf(alice.subject, page, 100, undefined),
      link: expect.stringMatching(/^<\/plants\?limit=100&cursor=[^>]+>; rel="next"$/),
    });
    expect((await read(alice)).headers).toEqual(first);
    // A cache moves a page on to a new version by copying it (whatever the handler kept on it comes along).
    page = { ...page, version: '4' };
    const moved = (await read(alice)).headers;
    expect(moved?.etag).toBe(entityTagOf(alice.subject, page, 100, undefined));
    expect(moved?.etag).not.toBe(first?.etag);
    // The same page object asked for by another caller, with another limit or on another route: its own headers.
    const bob = principal();
    expect((await read(bob)).headers?.etag).toBe(entityTagOf(bob.subject, page, 100, undefined));
    expect((await read(alice, 5)).headers?.link).toMatch(/^<\/plants\?limit=5&/);
    expect((await read(alice, 100, '/v2/plants')).headers?.link).toMatch(/^<\/v2\/plants\?/);
  });

  it('answers 304 with the tag and no body to an If-None-Match naming it (weakly, in a list, or *)', async () => {
    const alice = principal();
    await create(alice, { id: 1, name: 'Fern' });
    const tag = (await list(alice)).headers?.etag ?? '';
    for (const header of [tag, tag.slice(2), `W/"other", ${tag}`, '*']) {
      expect(await list(alice, {}, header)).toEqual({ status: 304, headers: { etag: tag }, body: undefined });
    }
    expect((await list(alice, {}, 'W/"stale"')).status).toBe(200);
  });
});

describe('deletePlant', () => {
  it('answers 204 for the caller’s plant, then 404 for it and for another caller’s', async () => {
    const alice = principal();
    const bob = principal();
    await create(alice, { id: 5, name: 'Fern' });
    await create(bob, { id: 6, name: 'Bobs' });
    expect(await remove(alice, 5)).toEqual({ status: 204, body: undefined });
    const again = await apiErrorOf(remove(alice, 5));
    expect(again.status).toBe(404);
    expect(again.message).toBe("no plant with id 5 exists for this token's owner");
    // Another's plant is exactly an unknown one, and it stays.
    expect((await apiErrorOf(remove(alice, 6))).message).toBe("no plant with id 6 exists for this token's owner");
    expect(plantsOf(await list(bob))).toEqual([{ name: 'Bobs' }]);
  });
});

describe('entity tags', () => {
  const page = pageOf('[]', { lastId: undefined, hasMore: false, version: '3' });

  it('compares weakly and ignores spaces in a list', () => {
    const tag = entityTagOf('alice', page, 10, undefined);
    expect(noneMatch(undefined, tag)).toBe(false);
    expect(noneMatch(` ${tag.slice(2)} ,W/"x"`, tag)).toBe(true);
    expect(noneMatch('W/"x", W/"y"', tag)).toBe(false);
  });

  it('differs by owner, limit and cursor, and carries the data version', () => {
    const tags = [
      entityTagOf('alice', { ...page }, 10, undefined),
      entityTagOf('bob', { ...page }, 10, undefined),
      entityTagOf('alice', { ...page }, 11, undefined),
      entityTagOf('alice', { ...page }, 10, 0n),
    ];
    expect(new Set(tags).size).toBe(4);
    for (const tag of tags) expect(tag).toMatch(/^W\/"3-[0-9a-f]{16}"$/);
  });
});

// The operation names bound here are the contract's: a new operation without a test here is noticed.
it('covers every operation of the handler map', () => {
  expect(Object.keys(handlers).sort()).toEqual(OPERATIONS.map((operation) => operation.operationId).sort());
});
