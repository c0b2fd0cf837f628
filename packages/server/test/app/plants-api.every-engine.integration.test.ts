// The three operations through inject: success paths, validation, int64 ids, paging and ownership.
// Every answer is checked against openapi.yaml by an independent validator (test-kit's contract-call.ts).

import { createTestApp, type TestApp } from '@plant-store/test-kit';
import { call } from '@plant-store/test-kit/contract-call';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let t: TestApp;
let alice: string;
let bob: string;

beforeAll(async () => {
  t = await createTestApp();
  alice = await t.token('alice');
  bob = await t.token('bob');
});
afterAll(() => t.close());

const create = (token: string, body: unknown) =>
  call(t.app, { method: 'POST', url: '/plants', path: '/plants', token, body });
const list = (token: string, query = '') =>
  call(t.app, { method: 'GET', url: `/plants${query}`, path: '/plants', token });
const remove = (token: string, id: string | number | bigint) =>
  call(t.app, { method: 'DELETE', url: `/plants/${id}`, path: '/plants/{id}', token });

describe('createPlant', () => {
  it('stores a plant and answers it without its id', async () => {
    const answer = await create(alice, { id: 1, name: 'Fern', tag: 'indoor' });
    expect(answer.status).toBe(200);
    expect(answer.json()).toEqual({ name: 'Fern', tag: 'indoor' });
  });

  it('accepts a plant without a tag', async () => {
    const answer = await create(alice, { id: 2, name: 'Moss' });
    expect(answer.status).toBe(200);
    expect(answer.json()).toEqual({ name: 'Moss' });
  });

  it('answers 409 for an id the caller already has', async () => {
    await create(alice, { id: 3, name: 'Ivy' });
    const answer = await create(alice, { id: 3, name: 'Other' });
    expect(answer.status).toBe(409);
    expect(answer.json()).toEqual({ error: 409, message: expect.stringContaining('id 3 already exists') });
  });

  it.each([
    ['a missing name', { id: 10 }, 'is missing the required field "name"'],
    ['a missing id', { name: 'x' }, 'is missing the required field "id"'],
    ['a number where a string is due', { id: 10, name: 5 }, 'body field "name" must be a string'],
    ['a string where an integer is due', { id: '12', name: 'x' }, 'body field "id" must be an integer'],
    ['a fractional id', { id: 1.5, name: 'x' }, 'body field "id" must be an integer'],
    ['an unknown field', { id: 10, name: 'x', owner: 'bob' }, 'unknown field "owner"'],
    ['an empty name', { id: 10, name: '' }, 'body field "name" must be at least 1 character long'],
    ['a name over 200 characters', { id: 10, name: 'x'.repeat(201) }, 'body field "name" must be at most 200'],
    ['a tag over 100 characters', { id: 10, name: 'x', tag: 't'.repeat(101) }, 'body field "tag" must be at most 100'],
    ['an empty tag', { id: 10, name: 'x', tag: '' }, 'body field "tag" must be at least 1'],
    ['a control character', { id: 10, name: 'a\u0007b' }, 'must not contain control characters'],
    ['a null tag', { id: 10, name: 'x', tag: null }, 'body field "tag" must be a string'],
    ['an array body', [{ id: 10, name: 'x' }], 'body must be a JSON object'],
    ['a string body', '"plant"', 'body must be a JSON object'],
    ['malformed JSON', '{"id": 10, "name": ', 'not valid JSON'],
    ['a __proto__ key', '{"id": 10, "name": "x", "__proto__": {"admin": true}}', '"__proto__" is not allowed'],
  ])('answers 400 naming the problem for %s', async (_case, body, message) => {
    const answer = await create(alice, body);
    expect(answer.status).toBe(400);
    expect((answer.json() as { message: string }).message).toContain(message);
  });

  it('accepts names and tags at their length bounds, in any script', async () => {
    expect((await create(alice, { id: 20, name: 'x'.repeat(200), tag: 't'.repeat(100) })).status).toBe(200);
    expect((await create(alice, { id: 21, name: '🌵'.repeat(200) })).status).toBe(200);
  });

  it('answers 400 for an empty body and for no body', async () => {
    const empty = await call(t.app, {
      method: 'POST',
      url: '/plants',
      path: '/plants',
      token: alice,
      body: '',
      headers: { 'content-type': 'application/json' },
    });
    expect(empty.status).toBe(400);
    const none = await call(t.app, { method: 'POST', url: '/plants', path: '/plants', token: alice });
    expect(none.status).toBe(400);
  });

  it('answers 413 for a body over 16384 bytes', async () => {
    const answer = await create(alice, { id: 30, name: 'x', tag: 'y'.repeat(17_000) });
    expect(answer.status).toBe(413);
    expect(answer.json()).toEqual({ error: 413, message: expect.stringContaining('16384') });
  });

  it('answers 415 for a body that is not application/json', async () => {
    const answer = await call(t.app, {
      method: 'POST',
      url: '/plants',
      path: '/plants',
      token: alice,
      body: 'id=1&name=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(answer.status).toBe(415);
    expect(answer.json()).toEqual({ error: 415, message: expect.stringContaining('application/json') });
  });
});

describe('int64 ids', () => {
  const edges = ['9007199254740993', '9223372036854775807', '-9223372036854775808', '0', '-1'];

  it.each(edges)('keeps %s exact through create, conflict and delete', async (id) => {
    const owner = await t.token(`int64-${id}`);
    expect((await create(owner, `{"id": ${id}, "name": "edge"}`)).status).toBe(200);
    expect((await create(owner, `{"id": ${id}, "name": "again"}`)).status).toBe(409);
    expect((await remove(owner, id)).status).toBe(204);
    expect((await remove(owner, id)).status).toBe(404);
  });

  it('does not confuse 2^53 and 2^53 + 1 (which a JavaScript number cannot tell apart)', async () => {
    const owner = await t.token('int64-neighbours');
    expect((await create(owner, '{"id": 9007199254740993, "name": "odd"}')).status).toBe(200);
    expect((await create(owner, '{"id": 9007199254740992, "name": "even"}')).status).toBe(200);
    expect((await remove(owner, '9007199254740993')).status).toBe(204);
    expect((await remove(owner, '9007199254740992')).status).toBe(204);
  });

  it.each(['9223372036854775808', '-9223372036854775809', '100000000000000000000'])(
    'refuses %s, outside int64, with the supported range',
    async (id) => {
      const body = await create(alice, `{"id": ${id}, "name": "too big"}`);
      expect(body.status).toBe(400);
      expect((body.json() as { message: string }).message).toContain(
        'must be an integer from -9223372036854775808 to 9223372036854775807',
      );
      const path = await remove(alice, id);
      expect(path.status).toBe(400);
      expect((path.json() as { message: string }).message).toContain('path parameter "id"');
    },
  );

  it.each(['abc', '1.5', '1e3', '0x10', '%20', '01', '-0', '-01'])('refuses the path id %s', async (id) => {
    expect((await remove(alice, id)).status).toBe(400);
  });

  it('has one form for a path id: -0 is refused with the words 01 gets, and 0 is read', async () => {
    const minusZero = await remove(alice, '-0');
    expect(minusZero.json()).toEqual((await remove(alice, '01')).json());
    expect(minusZero.status).toBe(400);
    expect((minusZero.json() as { message: string }).message).toContain('path parameter "id"');
    expect((await remove(alice, '0')).status).toBe(404);
  });

  it('refuses a member name repeated in the body, naming it, with an Idempotency-Key or without', async () => {
    const body = '{"id":5,"name":"Twice","id":9007199254740995}';
    const sends: Record<string, string>[] = [{}, { 'idempotency-key': 'repeated-member-1' }];
    for (const headers of sends) {
      const answer = await call(t.app, {
        method: 'POST',
        url: '/plants',
        path: '/plants',
        token: alice,
        body,
        headers,
      });
      expect(answer.status).toBe(400);
      expect((answer.json() as { message: string }).message).toContain('the member "id" appears more than once');
    }
    expect((await remove(alice, 9007199254740995n)).status).toBe(404);
    expect((await remove(alice, 5)).status).toBe(404);
  });
});

describe('getPlants', () => {
  it('lists only the caller’s plants, ascending by id', async () => {
    const carol = await t.token('carol');
    for (const id of [5, -3, 12, 0]) await create(carol, { id, name: `p${id}` });
    const answer = await list(carol);
    expect(answer.status).toBe(200);
    expect(answer.json()).toEqual([{ name: 'p-3' }, { name: 'p0' }, { name: 'p5' }, { name: 'p12' }]);
    expect(answer.headers.link).toBeUndefined();
  });

  it('pages with a Link rel="next" header, with no duplicates or gaps', async () => {
    const pager = await t.token('pager');
    const ids = Array.from({ length: 25 }, (_, i) => i * 7 - 50);
    for (const id of ids.toReversed()) await create(pager, { id, name: `n${id}` });
    const seen: unknown[] = [];
    let url: string | undefined = '/plants?limit=10';
    let pages = 0;
    while (url) {
      const answer = await call(t.app, { method: 'GET', url, path: '/plants', token: pager });
      expect(answer.status).toBe(200);
      seen.push(...(answer.json() as unknown[]));
      pages += 1;
      const link = answer.headers.link as string | undefined;
      url = link ? /^<([^>]+)>; rel="next"$/.exec(link)?.[1] : undefined;
      if (link) expect(url).toMatch(/^\/plants\?limit=10&cursor=[A-Za-z0-9_-]+$/);
    }
    expect(pages).toBe(3);
    expect(seen).toEqual(ids.map((id) => ({ name: `n${id}` })));
  });

  it('applies the default limit of 100', async () => {
    const many = await t.token('many');
    for (let id = 0; id < 101; id++) await create(many, { id, name: `m${id}` });
    const answer = await list(many);
    expect((answer.json() as unknown[]).length).toBe(100);
    expect(answer.headers.link).toMatch(/limit=100&cursor=/);
    expect((await list(many, '?limit=1000')).json()).toHaveLength(101);
  });

  it.each(['0', '1001', '-1', 'abc', '1.5', ''])('answers 400 for limit=%s', async (limit) => {
    const answer = await list(alice, `?limit=${limit}`);
    expect(answer.status).toBe(400);
    expect((answer.json() as { message: string }).message).toContain('query parameter "limit"');
  });

  it('answers 400 for a cursor it did not issue', async () => {
    for (const cursor of ['bm90LWEtY3Vyc29y', 'x', '!!']) {
      const answer = await list(alice, `?cursor=${cursor}`);
      expect(answer.status).toBe(400);
      expect((answer.json() as { message: string }).message).toContain('"cursor"');
    }
  });
});

describe('ownership', () => {
  it('keeps principals apart on list, delete and create', async () => {
    const dave = await t.token('dave');
    const erin = await t.token('erin');
    await create(dave, { id: 77, name: 'dave’s' });
    expect((await list(erin)).json()).toEqual([]);
    const foreignDelete = await remove(erin, 77);
    expect(foreignDelete.status).toBe(404);
    expect(foreignDelete.json()).toEqual({ error: 404, message: "no plant with id 77 exists for this token's owner" });
    expect((await create(erin, { id: 77, name: 'erin’s' })).status).toBe(200);
    expect((await list(dave)).json()).toEqual([{ name: 'dave’s' }]);
    expect((await list(erin)).json()).toEqual([{ name: 'erin’s' }]);
  });
});

describe('deletePlant', () => {
  it('deletes once with 204 and no body, then 404', async () => {
    await create(bob, { id: 500, name: 'x' });
    const first = await remove(bob, 500);
    expect(first.status).toBe(204);
    expect(first.text).toBe('');
    expect((await remove(bob, 500)).status).toBe(404);
  });
});
