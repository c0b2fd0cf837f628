// Request rules answered through inject (every engine): integer literals, text integrity, DELETE without a body,
// bad percent-escapes, HEAD, a lenient limit; and caller-chosen text (a field's or a
// parameter's name, a path, a charset) cut short in every refusal that repeats it.
import { createTestApp, type TestApp } from '@plant-store/test-kit';
import { type Call, call } from '@plant-store/test-kit/contract-call';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let t: TestApp;
let token: string;

beforeAll(async () => {
  t = await createTestApp();
  token = await t.token('rules');
});
afterAll(async () => {
  await t?.close();
});

const create = (body: unknown, headers?: Record<string, string>) =>
  call(t.app, { method: 'POST', url: '/plants', path: '/plants', token, body, ...(headers ? { headers } : {}) });

describe('an id is a JSON integer literal, decided from the number as written', () => {
  it.each(['9007199254740990.9', '5.0000000000000001', '1e2', '1.0', '1E+2', '1e16'])(
    'refuses {"id":%s}',
    async (id) => {
      const answer = await create(`{"id":${id},"name":"x"}`);
      expect(answer.status).toBe(400);
      expect(answer.json()).toEqual({ error: 400, message: expect.stringContaining('fraction or an exponent') });
    },
  );
  it('stores nothing for them, and still takes plain integer literals', async () => {
    expect((await create('{"id":5,"name":"five"}')).status).toBe(200);
    const list = await call(t.app, { method: 'GET', url: '/plants', path: '/plants', token });
    expect(list.json()).toEqual([{ name: 'five' }]);
  });
});

describe('text integrity', () => {
  it.each(['\u0080', '\u0085', '\u009f'])('refuses a C1 control character %j in name and tag', async (control) => {
    expect((await create({ id: 90, name: `a${control}b` })).status).toBe(400);
    expect((await create({ id: 91, name: 'ok', tag: `${control}` })).status).toBe(400);
  });
  it.each(['"\\ud800"', '"a\\udc00b"', '"\\udfff\\ud800"'])('refuses the lone surrogate %s', async (name) => {
    const answer = await create(`{"id":92,"name":${name}}`);
    expect(answer.status).toBe(400);
    expect(answer.json()).toEqual({ error: 400, message: expect.stringContaining('surrogate') });
  });
  it('refuses invalid UTF-8 bytes instead of replacing them', async () => {
    const bytes = Buffer.concat([Buffer.from('{"id":93,"name":"a'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
    const answer = await t.app.inject({
      method: 'POST',
      url: '/plants',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      payload: bytes,
    });
    expect(answer.statusCode).toBe(400);
    expect(answer.json()).toEqual({ error: 400, message: 'the body is not valid UTF-8' });
  });
  it.each(['latin1', 'ISO-8859-1', 'utf-16'])('answers 415 for charset=%s', async (charset) => {
    const answer = await create({ id: 94, name: 'x' }, { 'content-type': `application/json; charset=${charset}` });
    expect(answer.status).toBe(415);
  });
  it('accepts charset=utf-8 and stores exactly what it answers and lists', async () => {
    const name = 'Fern 🌿 é \u00a0 \u200d 𝔘';
    const created = await create({ id: 95, name }, { 'content-type': 'application/json; charset=UTF-8' });
    expect(created.status).toBe(200);
    expect(created.json()).toEqual({ name });
    const listed = await call(t.app, { method: 'GET', url: '/plants', path: '/plants', token });
    expect((listed.json() as { name: string }[]).map((plant) => plant.name)).toContain(name);
    expect(Buffer.from(listed.text).includes(Buffer.from(JSON.stringify(name).slice(1, -1)))).toBe(true);
  });
});

describe('an operation without a request body', () => {
  it('deletes with Content-Type: application/json and no body', async () => {
    expect((await create({ id: 110, name: 'gone' })).status).toBe(200);
    const answer = await call(t.app, {
      method: 'DELETE',
      url: '/plants/110',
      path: '/plants/{id}',
      token,
      headers: { 'content-type': 'application/json' },
    });
    expect(answer.status).toBe(204);
  });
  it('still wants a body for createPlant', async () => {
    const answer = await t.app.inject({
      method: 'POST',
      url: '/plants',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    });
    expect(answer.statusCode).toBe(400);
  });
});

describe('a bad percent-escape', () => {
  it.each(['/plants/%zz', '/plants/%', '/plants/%E0%A4%A'])(
    'answers %s in the Error shape with the usual headers',
    async (url) => {
      const answer = await t.app.inject({ method: 'DELETE', url, headers: { authorization: `Bearer ${token}` } });
      expect(answer.statusCode).toBe(400);
      expect(answer.json()).toEqual({ error: 400, message: expect.stringContaining('URL is malformed') });
      expect(answer.headers['x-request-id']).toBeDefined();
      expect(answer.headers['x-content-type-options']).toBe('nosniff');
      expect(answer.headers['cache-control']).toBe('no-store');
    },
  );
});

describe('HEAD wherever GET works', () => {
  it.each(['/healthz', '/readyz', '/openapi.json'])('answers HEAD %s with 200 and no body', async (url) => {
    const answer = await t.app.inject({ method: 'HEAD', url });
    expect(answer.statusCode).toBe(200);
    expect(answer.body).toBe('');
  });
  it('answers HEAD /plants like GET: 200 with a token, 401 without, never a body', async () => {
    const ok = await t.app.inject({ method: 'HEAD', url: '/plants', headers: { authorization: `Bearer ${token}` } });
    expect(ok.statusCode).toBe(200);
    expect(ok.body).toBe('');
    expect(ok.headers['content-type']).toMatch(/^application\/json/);
    const refused = await t.app.inject({ method: 'HEAD', url: '/plants' });
    expect(refused.statusCode).toBe(401);
    expect(refused.body).toBe('');
  });
});

describe('limit is decimal integer text and nothing else', () => {
  it.each(['0x3', '%203', '3.0', '3e0', '+3', '3%20', '03', '-0'])('answers 400 for limit=%s', async (limit) => {
    const answer = await call(t.app, { method: 'GET', url: `/plants?limit=${limit}`, path: '/plants', token });
    expect(answer.status).toBe(400);
    expect(answer.json()).toEqual({
      error: 400,
      message: expect.stringContaining('"limit"'),
      details: [expect.objectContaining({ location: 'query', field: 'limit' })],
    });
  });
  it('accepts limit=3', async () => {
    expect((await call(t.app, { method: 'GET', url: '/plants?limit=3', path: '/plants', token })).status).toBe(200);
  });
});

describe('query parameters the contract does not declare are refused, as unknown body fields are', () => {
  const refusal = (name: string, accepts: string) => ({
    error: 400,
    message: `unknown query parameter "${name}"; this operation ${accepts}`,
    details: [{ location: 'query', field: name, rule: 'unknownField' }],
  });
  it('answers GET /plants?tag=indoor with 400 naming tag, instead of an unfiltered 200', async () => {
    const answer = await call(t.app, { method: 'GET', url: '/plants?tag=indoor', path: '/plants', token });
    expect(answer.status).toBe(400);
    expect(answer.json()).toEqual(refusal('tag', 'accepts only limit, cursor'));
  });
  it('names the first unknown one, beside declared ones', async () => {
    const answer = await call(t.app, { method: 'GET', url: '/plants?limit=2&Limit=3&x=1', path: '/plants', token });
    expect(answer.json()).toEqual(refusal('Limit', 'accepts only limit, cursor'));
  });
  it('refuses them on every operation, those without query parameters too, and stores nothing', async () => {
    const created = await call(t.app, {
      method: 'POST',
      url: '/plants?dryRun=true',
      path: '/plants',
      token,
      body: { id: 700, name: 'never' },
    });
    expect(created.status).toBe(400);
    expect(created.json()).toEqual(refusal('dryRun', 'takes no query parameters'));
    const deleted = await call(t.app, { method: 'DELETE', url: '/plants/700?force=1', path: '/plants/{id}', token });
    expect(deleted.json()).toEqual(refusal('force', 'takes no query parameters'));
    const list = await call(t.app, { method: 'GET', url: '/plants?limit=1000', path: '/plants', token });
    expect((list.json() as { name: string }[]).map((plant) => plant.name)).not.toContain('never');
  });
  it('refuses a parameter without a value (?tag) and one with an empty name (?=x), but not an empty segment', async () => {
    const bare = await call(t.app, { method: 'GET', url: '/plants?tag', path: '/plants', token });
    expect(bare.json()).toEqual(refusal('tag', 'accepts only limit, cursor'));
    const empty = await call(t.app, { method: 'GET', url: '/plants?=x', path: '/plants', token });
    expect(empty.json()).toEqual(refusal('', 'accepts only limit, cursor'));
    const segments = await call(t.app, { method: 'GET', url: '/plants?&limit=2&', path: '/plants', token });
    expect(segments.status).toBe(200);
  });
  it('decodes names before comparing them: ?%6Cimit=2 is limit', async () => {
    const answer = await call(t.app, { method: 'GET', url: '/plants?%6Cimit=2', path: '/plants', token });
    expect(answer.status).toBe(200);
  });
  it('refuses a declared parameter given twice, whichever value would have won', async () => {
    const answer = await call(t.app, { method: 'GET', url: '/plants?limit=2&limit=2', path: '/plants', token });
    expect(answer.status).toBe(400);
    expect(answer.json()).toEqual({
      error: 400,
      message: 'query parameter "limit" is given 2 times; send it at most once',
      details: [{ location: 'query', field: 'limit', rule: 'repeated' }],
    });
  });
  it('checks the token first: no token is a 401, and access_token keeps its own 400', async () => {
    const anonymous = await call(t.app, { method: 'GET', url: '/plants?tag=indoor', path: '/plants' });
    expect(anonymous.status).toBe(401);
    const queryToken = await call(t.app, { method: 'GET', url: '/plants?access_token=x', path: '/plants', token });
    expect(queryToken.status).toBe(400);
    expect(queryToken.json()).toEqual({ error: 400, message: expect.stringContaining('tokens in the query string') });
  });
  it('answers HEAD as GET: 400 with no body', async () => {
    const answer = await t.app.inject({
      method: 'HEAD',
      url: '/plants?tag=indoor',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(answer.statusCode).toBe(400);
    expect(answer.body).toBe('');
  });
});

describe('what the caller chose is cut short in every refusal that repeats it', () => {
  const long = 'z'.repeat(4000);
  const shown = `${'z'.repeat(64)}...[cut: 4000 characters]`;
  const post = { method: 'POST', url: '/plants', path: '/plants' } as const;
  const cases: Array<[string, Omit<Call, 'token'>, number, string]> = [
    ['an unknown body field', { ...post, body: `{"id":96,"name":"x","${long}":1}` }, 400, `field "${shown}"`],
    ['an unknown query parameter', { method: 'GET', url: `/plants?${long}=1`, path: '/plants' }, 400, `"${shown}"`],
    ['a path no route has', { method: 'GET', url: `/${long}` }, 404, `/${'z'.repeat(63)}...[cut: 4001 characters]`],
    ['a path under another method', { method: 'POST', url: `/plants/${long}` }, 405, 'cut: 4008 characters'],
    [
      'a charset',
      { ...post, body: '{"id":96,"name":"x"}', headers: { 'content-type': `application/json; charset=${long}` } },
      415,
      `charset "${shown}"`,
    ],
  ];
  it.each(cases)('%s', async (_case, request, status, echo) => {
    const answer = await call(t.app, { ...request, token });
    expect(answer.status).toBe(status);
    expect((answer.json() as { message: string }).message).toContain(echo);
    expect(Buffer.byteLength(answer.text)).toBeLessThan(512);
  });
});
