// ETag and If-None-Match on getPlants through inject, on every engine: a weak ETag per page that changes with every
// create and delete of the caller's (made through this app or another app on the same database, as another instance
// would), 304 without a body for a matching If-None-Match, and tags that differ between queries and principals.
// Every answer is checked against openapi.yaml by an independent validator (test-kit's contract-call.ts).
import {
  createTestApp,
  createTestDatabase,
  TEST_DATABASE,
  type TestApp,
  type TestDatabase,
  waitFor,
} from '@plant-store/test-kit';
import { call } from '@plant-store/test-kit/contract-call';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let database: TestDatabase;
let one: TestApp;
let two: TestApp;
let alice: string;
let bob: string;

beforeAll(async () => {
  // Two apps on one database: two instances, each with its own page cache (and, on PostgreSQL, change feed).
  database = createTestDatabase();
  const env = { DATABASE_URL: database.url, RATE_LIMIT_MAX: '0' };
  one = await createTestApp({ env });
  two = await createTestApp({ env });
  alice = await one.token('alice');
  bob = await one.token('bob');
});
afterAll(async () => {
  await one.close();
  await two.close();
  await database.drop();
});

const list = (
  app: TestApp,
  token: string,
  query = '',
  headers: Record<string, string> = {},
  method: 'GET' | 'HEAD' = 'GET',
) =>
  // HEAD is not an operation of the contract's own: its answers are not checked against it.
  call(app.app, {
    method,
    url: `/plants${query}`,
    ...(method === 'GET' ? { path: '/plants' as const } : {}),
    token,
    headers,
  });
const create = (app: TestApp, token: string, body: unknown) =>
  call(app.app, { method: 'POST', url: '/plants', path: '/plants', token, body });
const etagOf = async (app: TestApp, token: string, query = '') => {
  const answer = await list(app, token, query);
  expect(answer.status).toBe(200);
  return String(answer.headers.etag);
};

describe('ETag and If-None-Match on getPlants', () => {
  it('answers a weak ETag, the same while nothing changes, and 304 with no body to If-None-Match', async () => {
    await create(one, alice, { id: 1, name: 'Fern' });
    const first = await list(one, alice);
    expect(first.headers.etag).toMatch(/^W\/"[^"]+"$/);
    expect(await etagOf(one, alice)).toBe(first.headers.etag);
    const again = await list(one, alice, '', { 'if-none-match': String(first.headers.etag) });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    expect(again.headers.etag).toBe(first.headers.etag);
    // The strong form of the same tag, a list of tags and * match too (weak comparison, RFC 9110).
    const opaque = String(first.headers.etag).slice(2);
    expect((await list(one, alice, '', { 'if-none-match': opaque })).status).toBe(304);
    expect((await list(one, alice, '', { 'if-none-match': `W/"other", ${first.headers.etag}` })).status).toBe(304);
    expect((await list(one, alice, '', { 'if-none-match': '*' })).status).toBe(304);
    expect((await list(one, alice, '', { 'if-none-match': 'W/"other"' })).status).toBe(200);
    expect((await list(one, alice, '', { 'if-none-match': String(first.headers.etag) }, 'HEAD')).status).toBe(304);
  });

  it('answers 200 with a new ETag after a create and after a delete', async () => {
    const before = await etagOf(one, alice);
    await create(one, alice, { id: 2, name: 'Moss' });
    const created = await list(one, alice, '', { 'if-none-match': before });
    expect(created.status).toBe(200);
    expect(created.json()).toContainEqual({ name: 'Moss' });
    expect(created.headers.etag).not.toBe(before);
    await call(one.app, { method: 'DELETE', url: '/plants/2', path: '/plants/{id}', token: alice });
    const deleted = await list(one, alice, '', { 'if-none-match': String(created.headers.etag) });
    expect(deleted.status).toBe(200);
    expect(deleted.headers.etag).not.toBe(created.headers.etag);
    expect(deleted.headers.etag).not.toBe(before);
  });

  it('answers 200 with a new ETag after a create or delete the cached page cannot show (beyond a full page)', async () => {
    const carol = await one.token('carol');
    for (const id of [1, 2, 3]) await create(one, carol, { id, name: `c${id}` });
    // A full first page of two (more follow): creating or deleting beyond its last plant leaves its content as it is.
    const before = await list(one, carol, '?limit=2');
    expect(before.json()).toEqual([{ name: 'c1' }, { name: 'c2' }]);
    await create(one, carol, { id: 9, name: 'beyond' });
    const created = await list(one, carol, '?limit=2', { 'if-none-match': String(before.headers.etag) });
    expect(created.status).toBe(200);
    expect(created.json()).toEqual([{ name: 'c1' }, { name: 'c2' }]);
    expect(created.headers.etag).not.toBe(before.headers.etag);
    // The same tag again while nothing changes: the page kept its place in the cache, with the new version.
    expect((await list(one, carol, '?limit=2', { 'if-none-match': String(created.headers.etag) })).status).toBe(304);
    await call(one.app, { method: 'DELETE', url: '/plants/9', path: '/plants/{id}', token: carol });
    const deleted = await list(one, carol, '?limit=2', { 'if-none-match': String(created.headers.etag) });
    expect(deleted.status).toBe(200);
    expect(deleted.headers.etag).not.toBe(created.headers.etag);
    expect(deleted.headers.etag).not.toBe(before.headers.etag);
  });

  it('keeps the ETag when a create is refused, and when another principal writes', async () => {
    const before = await etagOf(one, alice);
    expect((await create(one, alice, { id: 1, name: 'Fern' })).status).toBe(409);
    await create(one, bob, { id: 1, name: 'Bob’s' });
    expect((await list(one, alice, '', { 'if-none-match': before })).status).toBe(304);
  });

  it('gives each query and each principal its own ETag', async () => {
    const tags = new Set([
      await etagOf(one, alice),
      await etagOf(one, alice, '?limit=1'),
      await etagOf(one, alice, '?limit=5'),
      await etagOf(one, bob),
    ]);
    expect(tags.size).toBe(4);
    // Another principal's tag never matches.
    expect((await list(one, bob, '', { 'if-none-match': await etagOf(one, alice) })).status).toBe(200);
  });

  // Two instances share a database; on the memory engine each app has a store of its own (`memory:` is per store).
  it.skipIf(TEST_DATABASE === 'memory')(
    'changes on every instance: a create or delete through one is a 200 with a new ETag on the other',
    async () => {
      const seen = await etagOf(two, alice);
      expect((await list(two, alice, '', { 'if-none-match': seen })).status).toBe(304);
      await create(one, alice, { id: 3, name: 'Ivy' });
      await waitFor('the other instance to see the create', async () => {
        const answer = await list(two, alice, '', { 'if-none-match': seen });
        return (
          answer.status === 200 &&
          (answer.json() as unknown[]).some((plant) => (plant as { name: string }).name === 'Ivy')
        );
      });
      const next = await etagOf(two, alice);
      expect(next).not.toBe(seen);
      expect(await etagOf(one, alice)).toBe(next);
      await call(two.app, { method: 'DELETE', url: '/plants/3', path: '/plants/{id}', token: alice });
      await waitFor('the first instance to see the delete', async () => (await etagOf(one, alice)) !== next);
      expect((await list(one, alice, '', { 'if-none-match': next })).status).toBe(200);
    },
  );
});
