// Idempotency-Key on createPlant through inject, on every engine: the first answer (200 or 409) is kept per principal
// and replayed with Idempotent-Replayed, a key reused with another body is a 422, a repeat while the first is in
// flight is a 409 without a second write, keys are bounded, and the sweeper removes expired and excess keys.
// Every answer is checked against openapi.yaml by an independent validator (test-kit's contract-call.ts).
import { BODY_NOT_UTF8_MESSAGE } from '@plant-store/contract';
import { MAX_IDEMPOTENCY_KEYS_PER_PRINCIPAL } from '@plant-store/core';
import { createTestApp, type TestApp } from '@plant-store/test-kit';
import { call } from '@plant-store/test-kit/contract-call';
import { pageText } from '@plant-store/test-kit/page-text';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { IDEMPOTENCY_TTL_MS } from '../../src/store/store.js';

let t: TestApp;
let alice: string;
let bob: string;

beforeAll(async () => {
  t = await createTestApp({ env: { RATE_LIMIT_MAX: '0' } });
  alice = await t.token('alice');
  bob = await t.token('bob');
});
afterAll(() => t.close());

const create = (token: string, body: unknown, key?: string) =>
  call(t.app, {
    method: 'POST',
    url: '/plants',
    path: '/plants',
    token,
    body,
    ...(key === undefined ? {} : { headers: { 'idempotency-key': key } }),
  });
const count = async (owner: string) => pageText(await t.store.plants.list(owner, { limit: 1000 }));

describe('Idempotency-Key on createPlant', () => {
  it('replays the 200 to a repeat with the same key and body, with Idempotent-Replayed, and stores the plant once', async () => {
    const first = await create(alice, { id: 1, name: 'Fern', tag: 'indoor' }, 'key-1');
    expect(first.status).toBe(200);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await create(alice, { id: 1, name: 'Fern', tag: 'indoor' }, 'key-1');
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.text).toBe(first.text);
    expect(JSON.parse(await count('alice'))).toEqual([{ name: 'Fern', tag: 'indoor' }]);
  });

  it('keeps a 409 and replays it, even after the conflicting plant is deleted', async () => {
    await create(alice, { id: 2, name: 'Moss' });
    const first = await create(alice, { id: 2, name: 'Moss' }, 'key-2');
    expect(first.status).toBe(409);
    expect((await call(t.app, { method: 'DELETE', url: '/plants/2', path: '/plants/{id}', token: alice })).status).toBe(
      204,
    );
    const again = await create(alice, { id: 2, name: 'Moss' }, 'key-2');
    expect(again.status).toBe(409);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(first.json());
    expect(JSON.parse(await count('alice'))).not.toContainEqual({ name: 'Moss' });
  });

  it('refuses the same key with another body with 422 in the Error shape, and writes nothing', async () => {
    expect((await create(alice, { id: 3, name: 'Ivy' }, 'key-3')).status).toBe(200);
    const other = await create(alice, { id: 4, name: 'Ivy' }, 'key-3');
    expect(other.status).toBe(422);
    expect(other.json()).toEqual({ error: 422, message: expect.stringContaining('Idempotency-Key') });
    const renamed = await create(alice, { id: 3, name: 'Ivy', tag: 'x' }, 'key-3');
    expect(renamed.status).toBe(422);
    expect(await count('alice')).not.toContain('"x"');
    expect((await create(alice, { id: 4, name: 'Ivy' })).status).toBe(200);
  });

  it('keeps keys per principal: the same key is a new request for another principal', async () => {
    expect((await create(alice, { id: 5, name: 'Aloe' }, 'shared-key')).status).toBe(200);
    const bobs = await create(bob, { id: 5, name: 'Aloe' }, 'shared-key');
    expect(bobs.status).toBe(200);
    expect(bobs.headers['idempotent-replayed']).toBeUndefined();
    expect(JSON.parse(await count('bob'))).toEqual([{ name: 'Aloe' }]);
  });

  it('answers a repeat that arrives while the first is in flight with 409 and Retry-After, without a second write', async () => {
    const body = { id: 6, name: 'Cactus' };
    // Hold the first request inside the store until the second has been answered.
    const plants = t.store.plants;
    const createOnce = plants.createOnce;
    let release = () => {};
    let entered = () => {};
    const inside = new Promise<void>((resolve) => {
      entered = resolve;
    });
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    plants.createOnce = async (...args) => {
      entered();
      await gate;
      return createOnce.apply(plants, args);
    };
    let first: Awaited<ReturnType<typeof create>>;
    let second: Awaited<ReturnType<typeof create>>;
    try {
      const pending = create(alice, body, 'key-6');
      await inside;
      second = await create(alice, body, 'key-6');
      release();
      first = await pending;
    } finally {
      plants.createOnce = createOnce;
    }
    expect(first.status).toBe(200);
    expect(second.status).toBe(409);
    expect(second.headers['retry-after']).toBe('1');
    expect(second.json()).toEqual({ error: 409, message: expect.stringContaining('still being processed') });
    const after = await create(alice, body, 'key-6');
    expect(after.status).toBe(200);
    expect(after.headers['idempotent-replayed']).toBe('true');
  });

  it('keeps each of many concurrent keyed creates in one group commit apart', async () => {
    const bodies = Array.from({ length: 20 }, (_, i) => ({ id: 100 + (i % 10), name: `p${i}` }));
    const answers = await Promise.all(bodies.map((body, i) => create(bob, body, `batch-${i}`)));
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(10);
    expect(answers.filter((answer) => answer.status === 409)).toHaveLength(10);
    const replays = await Promise.all(bodies.map((body, i) => create(bob, body, `batch-${i}`)));
    expect(replays.map((answer) => [answer.status, answer.text])).toEqual(
      answers.map((answer) => [answer.status, answer.text]),
    );
    expect(replays.every((answer) => answer.headers['idempotent-replayed'] === 'true')).toBe(true);
  });

  it.each([
    ['an empty key', ''],
    ['a key over 255 characters', 'k'.repeat(256)],
    ['a key with a space', 'two words'],
  ])('refuses %s with 400', async (_case, key) => {
    const answer = await create(alice, { id: 7, name: 'Sage' }, key);
    expect(answer.status).toBe(400);
    expect(answer.json()).toEqual({ error: 400, message: expect.stringMatching(/header "idempotency-key"/i) });
  });

  it('keeps a 400 for the body and replays it to the same body, with Idempotent-Replayed; another body is a 422', async () => {
    const bad = { id: 20, name: 'x'.repeat(201) };
    const first = await create(alice, bad, 'key-400');
    expect(first.status).toBe(400);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(first.json()).toMatchObject({ error: 400, details: [{ field: 'name', rule: 'maxLength' }] });
    const again = await create(alice, bad, 'key-400');
    expect(again.status).toBe(400);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.text).toBe(first.text);
    // The corrected body under the same key is another request: 422, and nothing is stored.
    const fixed = await create(alice, { id: 20, name: 'Fixed' }, 'key-400');
    expect(fixed.status).toBe(422);
    expect(await count('alice')).not.toContain('Fixed');
    // With a new key the corrected body is created.
    expect((await create(alice, { id: 20, name: 'Fixed' }, 'key-400b')).status).toBe(200);
  });

  it('keeps the 400 for a body that is not JSON, or missing, under the exact bytes sent', async () => {
    const first = await create(alice, '{"id": 21, "name": ', 'key-400-json');
    expect(first.status).toBe(400);
    const again = await create(alice, '{"id": 21, "name": ', 'key-400-json');
    expect([again.status, again.headers['idempotent-replayed'], again.text]).toEqual([400, 'true', first.text]);
    expect((await create(alice, '{"id": 21, "name": "Sage"}', 'key-400-json')).status).toBe(422);
    const send = () =>
      t.app.inject({
        method: 'POST',
        url: '/plants',
        headers: { authorization: `Bearer ${alice}`, 'idempotency-key': 'key-400-none' },
      });
    expect((await send()).statusCode).toBe(400);
    const none = await send();
    expect([none.statusCode, none.headers['idempotent-replayed']]).toEqual([400, 'true']);
  });

  it('parses a keyed body as exactly as any other: an id beyond 2^53 is that id; bytes that are not UTF-8 are a kept 400', async () => {
    const big = '9007199254740993';
    expect((await create(alice, `{"id": ${big}, "name": "Big"}`, 'key-big')).status).toBe(200);
    const remove = (id: string) =>
      t.app.inject({ method: 'DELETE', url: `/plants/${id}`, headers: { authorization: `Bearer ${alice}` } });
    expect((await remove('9007199254740992')).statusCode).toBe(404);
    expect((await remove(big)).statusCode).toBe(204);
    const send = () =>
      t.app.inject({
        method: 'POST',
        url: '/plants',
        headers: {
          authorization: `Bearer ${alice}`,
          'idempotency-key': 'key-400-utf8',
          'content-type': 'application/json',
        },
        payload: Buffer.from([0x7b, 0xff, 0x7d]),
      });
    const first = await send();
    expect(first.statusCode).toBe(400);
    expect(first.json()).toMatchObject({ error: 400, message: BODY_NOT_UTF8_MESSAGE });
    const again = await send();
    expect([again.statusCode, again.headers['idempotent-replayed'], again.body]).toEqual([400, 'true', first.body]);
  });

  it('keeps at most 2 KB for a 15 KB unknown field name, its name cut with a marker, and replays it whole', async () => {
    const name = `f${'x'.repeat(15 * 1024)}`;
    const body = `{"id": 25, "name": "Yarrow", "${name}": 1}`;
    const first = await create(alice, body, 'key-400-long-name');
    expect(first.status).toBe(400);
    expect(Buffer.byteLength(first.text)).toBeLessThanOrEqual(2048);
    const cut = `f${'x'.repeat(63)}...[cut: ${name.length} characters]`;
    expect(first.json()).toEqual({
      error: 400,
      message: `body has an unknown field "${cut}"; only the fields the contract declares are accepted`,
      details: [{ location: 'body', field: cut, rule: 'unknownField' }],
    });
    const again = await create(alice, body, 'key-400-long-name');
    expect([again.status, again.headers['idempotent-replayed'], again.text]).toEqual([400, 'true', first.text]);
  });

  it('keeps a 400 per principal, and a kept 200 answers a refused body under its key with 422', async () => {
    const bad = { id: 22, name: '' };
    expect((await create(alice, bad, 'key-400-shared')).status).toBe(400);
    const bobs = await create(bob, bad, 'key-400-shared');
    expect([bobs.status, bobs.headers['idempotent-replayed']]).toEqual([400, undefined]);
    expect((await create(alice, { id: 23, name: 'Thyme' }, 'key-200')).status).toBe(200);
    expect((await create(alice, { id: 23, name: '' }, 'key-200')).status).toBe(422);
  });

  it('keeps no 400 for a malformed key, an unknown query parameter, or a caller without a token', async () => {
    const body = { id: 24, name: 'x'.repeat(201) };
    const malformed = await create(alice, body, 'two words');
    expect(malformed.status).toBe(400);
    const query = () =>
      call(t.app, {
        method: 'POST',
        url: '/plants?dryRun=1',
        path: '/plants',
        token: alice,
        body,
        headers: { 'idempotency-key': 'key-400-query' },
      });
    expect((await query()).status).toBe(400);
    expect((await query()).headers['idempotent-replayed']).toBeUndefined();
    // The key was never used: a valid body under it is created.
    expect((await create(alice, { id: 24, name: 'Dill' }, 'key-400-query')).status).toBe(200);
    const anonymous = await t.app.inject({
      method: 'POST',
      url: '/plants',
      headers: { 'idempotency-key': 'key-400-anon', 'content-type': 'application/json' },
      payload: '{',
    });
    expect(anonymous.statusCode).toBe(401);
  });

  it('accepts a key of 255 visible ASCII characters', async () => {
    expect((await create(alice, { id: 8, name: 'Mint' }, '~'.repeat(255))).status).toBe(200);
  });

  it('treats a key older than 24 hours as unused', async () => {
    const plant = { id: 9n, name: 'Basil' };
    const claim = (now: number) => ({ key: 'old-key', fingerprint: 'f1', created: '{}', conflict: '{}', now });
    const long = Date.now() - IDEMPOTENCY_TTL_MS - 1000;
    expect(await t.store.plants.createOnce('carol', plant, claim(long))).toBe(true);
    expect(await t.store.plants.createOnce('carol', plant, claim(long + 1))).toMatchObject({ status: 200 });
    expect(await t.store.plants.createOnce('carol', plant, { ...claim(Date.now()), fingerprint: 'f2' })).toBe(false);
    expect(await t.store.plants.createOnce('carol', plant, claim(Date.now()))).toMatchObject({
      fingerprint: 'f2',
      status: 409,
    });
  });

  it('holds a principal at 10,000 keys in the write that keeps one more, however fast the keyed requests come', async () => {
    // A store of its own: counting every key of the store counts this principal's alone.
    const own = await createTestApp({ env: { RATE_LIMIT_MAX: '0' } });
    onTestFinished(() => own.close());
    const token = await own.token('grace');
    const now = Date.now();
    // Seeded at the bound by keyed creates, group-committed in batches, oldest first: seed-0 ... seed-9999.
    const seed = (i: number) =>
      own.store.plants.createOnce(
        'grace',
        { id: BigInt(1_000_000 + i), name: 'Seed' },
        { key: `seed-${i}`, fingerprint: 'f', created: '{}', conflict: '{}', now: now - 60_000 + i },
      );
    for (let from = 0; from < MAX_IDEMPOTENCY_KEYS_PER_PRINCIPAL; from += 1000) {
      expect(await Promise.all(Array.from({ length: 1000 }, (_, i) => seed(from + i)))).not.toContain(false);
    }
    const send = (i: number) =>
      call(own.app, {
        method: 'POST',
        url: '/plants',
        path: '/plants',
        token,
        // Keyed creates (a group commit's batch) and kept 400s alike.
        body: i % 2 === 0 ? { id: i, name: 'Rue' } : { id: i, name: '' },
        headers: { 'idempotency-key': `new-${i}` },
      });
    // 40 at once (batches racing on PostgreSQL may leave a key or two over, for the next write), then 40 one by one.
    await Promise.all(Array.from({ length: 40 }, (_, i) => send(i)));
    for (let i = 40; i < 80; i++) expect((await send(i)).status).toBe(i % 2 === 0 ? 200 : 400);
    // The 80 new keys are kept and seed-80 is the oldest left: the 80 oldest went, nothing else.
    for (let i = 0; i < 80; i++) expect((await send(i)).headers['idempotent-replayed']).toBe('true');
    expect(
      await own.store.idempotency.remember('grace', 'seed-80', { fingerprint: 'g', status: 400, body: '{}' }, now),
    ).toMatchObject({ fingerprint: 'f' });
    // Every key is expired to a sweep dated far ahead: it deletes them all and says how many there were.
    expect(await own.store.idempotency.sweep(Number.MAX_SAFE_INTEGER, MAX_IDEMPOTENCY_KEYS_PER_PRINCIPAL, 20_000)).toBe(
      MAX_IDEMPOTENCY_KEYS_PER_PRINCIPAL,
    );
  }, 120_000);

  it('sweeps expired keys and a principal’s oldest keys beyond the bound, in bounded steps', async () => {
    // A store of its own: the keys of the tests above would count against the bound too.
    const own = await createTestApp();
    onTestFinished(() => own.close());
    const now = Date.now();
    const keep = (owner: string, key: string, at: number) =>
      own.store.idempotency.remember(owner, key, { fingerprint: 'f', status: 400, body: '{}' }, at);
    for (let i = 0; i < 5; i++) await keep('dave', `expired-${i}`, now - IDEMPOTENCY_TTL_MS - 10_000 + i);
    for (let i = 0; i < 8; i++) await keep('erin', `k-${i}`, now - 1000 + i);
    // Expired keys first, at most `limit` per sweep.
    expect(await own.store.idempotency.sweep(now - IDEMPOTENCY_TTL_MS, 1000, 3)).toBe(3);
    expect(await own.store.idempotency.sweep(now - IDEMPOTENCY_TTL_MS, 1000, 3)).toBe(2);
    expect(await keep('dave', 'expired-4', now)).toBeUndefined();
    // Then the oldest keys of a principal over the bound (5 here): erin keeps her 5 newest.
    expect(await own.store.idempotency.sweep(now - IDEMPOTENCY_TTL_MS, 5, 100)).toBe(3);
    expect(await keep('erin', 'k-2', now)).toBeUndefined();
    expect(await keep('erin', 'k-3', now)).toMatchObject({ status: 400 });
  });
});
