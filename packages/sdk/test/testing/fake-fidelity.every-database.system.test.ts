// The testing kit answers like the service: the same raw requests go to the real service (over a socket) and to
// createFakePlantStore().fetch, and the statuses, Error bodies and the headers clients act on must be identical. On
// SQLite and PostgreSQL: the fake runs the service's handlers over the memory engine, and each engine must answer them
// alike.

import { startTestServer, type TestServer } from '@plant-store/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFakePlantStore } from '../../src/testing/index.js';

interface Probe {
  method: string;
  path: string;
  /** Whose token: a subject with both scopes, 'reader' (read only), or a literal Authorization header. */
  auth?: { subject: string } | { reader: string } | { header: string };
  body?: string;
  contentType?: string;
  /** Sent as Idempotency-Key. */
  key?: string;
}

const COMPARED_HEADERS = [
  'content-type',
  'link',
  'www-authenticate',
  'allow',
  'cache-control',
  'x-content-type-options',
  'idempotent-replayed',
];

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ env: { RATE_LIMIT_MAX: '0' } });
});
afterAll(() => server?.close());

type Target = (probe: Probe) => Promise<{ status: number; body: unknown; headers: Record<string, string | null> }>;

function target(
  base: string,
  fetch: typeof globalThis.fetch,
  token: (subject: string, read: boolean) => Promise<string>,
): Target {
  const tokens = new Map<string, string>();
  return async (probe) => {
    const headers = new Headers();
    if (probe.auth && 'header' in probe.auth) headers.set('authorization', probe.auth.header);
    else if (probe.auth) {
      const [subject, readOnly] = 'reader' in probe.auth ? [probe.auth.reader, true] : [probe.auth.subject, false];
      const key = `${subject}:${readOnly}`;
      if (!tokens.has(key)) tokens.set(key, await token(subject, readOnly));
      headers.set('authorization', `Bearer ${tokens.get(key)}`);
    }
    if (probe.contentType) headers.set('content-type', probe.contentType);
    if (probe.key) headers.set('idempotency-key', probe.key);
    const response = await fetch(`${base}${probe.path}`, {
      method: probe.method,
      headers,
      ...(probe.body === undefined ? {} : { body: probe.body }),
    });
    const text = await response.text();
    return {
      status: response.status,
      body: text === '' ? '' : JSON.parse(text),
      headers: Object.fromEntries(COMPARED_HEADERS.map((name) => [name, response.headers.get(name)])),
    };
  };
}

const json = 'application/json';
const alice = { subject: 'fidelity-alice' };
const PROBES: Array<[string, Probe]> = [
  [
    'create',
    { method: 'POST', path: '/plants', auth: alice, body: '{"id":1,"name":"Fern","tag":"indoor"}', contentType: json },
  ],
  [
    'create int64 max',
    {
      method: 'POST',
      path: '/plants',
      auth: alice,
      body: '{"id":9223372036854775807,"name":"Max"}',
      contentType: json,
    },
  ],
  [
    'create 2^53+1',
    { method: 'POST', path: '/plants', auth: alice, body: '{"id":9007199254740993,"name":"Odd"}', contentType: json },
  ],
  [
    'create 2^53',
    { method: 'POST', path: '/plants', auth: alice, body: '{"id":9007199254740992,"name":"Even"}', contentType: json },
  ],
  [
    'create with charset',
    {
      method: 'POST',
      path: '/plants',
      auth: alice,
      body: '{"id":2,"name":"Ivy"}',
      contentType: 'application/json; charset=utf-8',
    },
  ],
  ['conflict', { method: 'POST', path: '/plants', auth: alice, body: '{"id":1,"name":"Again"}', contentType: json }],
  ['list all', { method: 'GET', path: '/plants', auth: alice }],
  ['list page 1', { method: 'GET', path: '/plants?limit=2', auth: alice }],
  ['list limit 1000', { method: 'GET', path: '/plants?limit=1000', auth: alice }],
  ['limit 0', { method: 'GET', path: '/plants?limit=0', auth: alice }],
  ['limit 1001', { method: 'GET', path: '/plants?limit=1001', auth: alice }],
  ['limit text', { method: 'GET', path: '/plants?limit=ten', auth: alice }],
  ['limit fraction', { method: 'GET', path: '/plants?limit=1.5', auth: alice }],
  ['cursor bad chars', { method: 'GET', path: '/plants?cursor=a.b', auth: alice }],
  ['cursor too long', { method: 'GET', path: `/plants?cursor=${'a'.repeat(65)}`, auth: alice }],
  ['cursor not issued', { method: 'GET', path: '/plants?cursor=abc', auth: alice }],
  ['other owner lists nothing', { method: 'GET', path: '/plants', auth: { subject: 'fidelity-bob' } }],
  ['other owner deletes', { method: 'DELETE', path: '/plants/1', auth: { subject: 'fidelity-bob' } }],
  ['delete', { method: 'DELETE', path: '/plants/2', auth: alice }],
  ['delete again', { method: 'DELETE', path: '/plants/2', auth: alice }],
  ['delete 2^53+1', { method: 'DELETE', path: '/plants/9007199254740993', auth: alice }],
  ['delete text id', { method: 'DELETE', path: '/plants/abc', auth: alice }],
  ['delete beyond int64', { method: 'DELETE', path: '/plants/9223372036854775808', auth: alice }],
  ['delete fraction', { method: 'DELETE', path: '/plants/1.5', auth: alice }],
  ['list after deletes', { method: 'GET', path: '/plants', auth: alice }],
  [
    'name too long',
    {
      method: 'POST',
      path: '/plants',
      auth: alice,
      body: JSON.stringify({ id: 3, name: 'x'.repeat(201) }),
      contentType: json,
    },
  ],
  [
    'name 200 emoji',
    {
      method: 'POST',
      path: '/plants',
      auth: alice,
      body: JSON.stringify({ id: 3, name: '🌵'.repeat(200) }),
      contentType: json,
    },
  ],
  ['name empty', { method: 'POST', path: '/plants', auth: alice, body: '{"id":4,"name":""}', contentType: json }],
  ['name number', { method: 'POST', path: '/plants', auth: alice, body: '{"id":4,"name":5}', contentType: json }],
  [
    'name control',
    { method: 'POST', path: '/plants', auth: alice, body: '{"id":4,"name":"a\\u0007b"}', contentType: json },
  ],
  [
    'tag too long',
    {
      method: 'POST',
      path: '/plants',
      auth: alice,
      body: JSON.stringify({ id: 4, name: 'x', tag: 't'.repeat(101) }),
      contentType: json,
    },
  ],
  [
    'tag empty',
    { method: 'POST', path: '/plants', auth: alice, body: '{"id":4,"name":"x","tag":""}', contentType: json },
  ],
  [
    'tag null',
    { method: 'POST', path: '/plants', auth: alice, body: '{"id":4,"name":"x","tag":null}', contentType: json },
  ],
  ['name missing', { method: 'POST', path: '/plants', auth: alice, body: '{"id":4}', contentType: json }],
  ['id missing', { method: 'POST', path: '/plants', auth: alice, body: '{"name":"x"}', contentType: json }],
  ['id string', { method: 'POST', path: '/plants', auth: alice, body: '{"id":"4","name":"x"}', contentType: json }],
  ['id fraction', { method: 'POST', path: '/plants', auth: alice, body: '{"id":4.5,"name":"x"}', contentType: json }],
  [
    'id beyond int64',
    { method: 'POST', path: '/plants', auth: alice, body: '{"id":9223372036854775808,"name":"x"}', contentType: json },
  ],
  [
    'unknown field',
    { method: 'POST', path: '/plants', auth: alice, body: '{"id":4,"name":"x","colour":"green"}', contentType: json },
  ],
  [
    'two problems: name first',
    { method: 'POST', path: '/plants', auth: alice, body: '{"id":"x","name":"","extra":1}', contentType: json },
  ],
  [
    'proto key',
    { method: 'POST', path: '/plants', auth: alice, body: '{"id":4,"name":"x","__proto__":{}}', contentType: json },
  ],
  // Exact JSON: the fake parses with the contract's parseJsonExact, as the service does.
  ['id 4.0', { method: 'POST', path: '/plants', auth: alice, body: '{"id":4.0,"name":"x"}', contentType: json }],
  ['id 1e2', { method: 'POST', path: '/plants', auth: alice, body: '{"id":1e2,"name":"x"}', contentType: json }],
  [
    'nested too deep',
    {
      method: 'POST',
      path: '/plants',
      auth: alice,
      body: `{"id":4,"x":${'['.repeat(40)}${']'.repeat(40)}}`,
      contentType: json,
    },
  ],
  [
    'escaped proto key',
    {
      method: 'POST',
      path: '/plants',
      auth: alice,
      body: '{"id":4,"name":"x","\\u005f_proto__":{}}',
      contentType: json,
    },
  ],
  [
    'lone surrogate',
    { method: 'POST', path: '/plants', auth: alice, body: '{"id":4,"name":"\\ud800"}', contentType: json },
  ],
  [
    'C1 control',
    { method: 'POST', path: '/plants', auth: alice, body: '{"id":4,"name":"a\\u0085"}', contentType: json },
  ],
  ['array body', { method: 'POST', path: '/plants', auth: alice, body: '[]', contentType: json }],
  ['number body', { method: 'POST', path: '/plants', auth: alice, body: '5', contentType: json }],
  ['empty json body', { method: 'POST', path: '/plants', auth: alice, body: '', contentType: json }],
  ['no body at all', { method: 'POST', path: '/plants', auth: alice }],
  [
    'text/plain body',
    { method: 'POST', path: '/plants', auth: alice, body: '{"id":4,"name":"x"}', contentType: 'text/plain' },
  ],
  [
    'too large',
    {
      method: 'POST',
      path: '/plants',
      auth: alice,
      body: JSON.stringify({ id: 4, name: 'x', tag: 't'.repeat(20_000) }),
      contentType: json,
    },
  ],
  ['no token', { method: 'GET', path: '/plants' }],
  ['basic scheme', { method: 'GET', path: '/plants', auth: { header: 'Basic dXNlcjpwYXNz' } }],
  ['malformed token', { method: 'GET', path: '/plants', auth: { header: 'Bearer a b' } }],
  ['unknown token', { method: 'GET', path: '/plants', auth: { header: 'Bearer pst_nope' } }],
  ['query token', { method: 'GET', path: '/plants?access_token=x', auth: alice }],
  ['unknown query parameter', { method: 'GET', path: '/plants?tag=indoor', auth: alice }],
  ['unknown and declared parameters', { method: 'GET', path: '/plants?limit=2&Limit=3', auth: alice }],
  ['parameter with an empty name', { method: 'GET', path: '/plants?=x', auth: alice }],
  ['empty query segments', { method: 'GET', path: '/plants?&limit=2&', auth: alice }],
  ['repeated declared parameter', { method: 'GET', path: '/plants?limit=2&limit=3', auth: alice }],
  ['unknown parameter without a token', { method: 'GET', path: '/plants?tag=indoor' }],
  [
    'unknown parameter on a create',
    { method: 'POST', path: '/plants?dryRun=1', auth: alice, body: '{"id":5,"name":"x"}', contentType: json },
  ],
  ['unknown parameter on a delete', { method: 'DELETE', path: '/plants/1?force=1', auth: alice }],
  ['reader lists', { method: 'GET', path: '/plants', auth: { reader: 'fidelity-reader' } }],
  [
    'reader creates',
    {
      method: 'POST',
      path: '/plants',
      auth: { reader: 'fidelity-reader' },
      body: '{"id":1,"name":"x"}',
      contentType: json,
    },
  ],
  ['reader deletes', { method: 'DELETE', path: '/plants/1', auth: { reader: 'fidelity-reader' } }],
  [
    'unknown token with bad body',
    { method: 'POST', path: '/plants', auth: { header: 'Bearer pst_nope' }, body: '{', contentType: json },
  ],
  // A 400 for the body of a keyed create is its key's first answer: replayed to the same bytes, 422 for others.
  ...(['first', 'again'] as const).map((round): [string, Probe] => [
    `keyed create refused for its body (${round})`,
    { method: 'POST', path: '/plants', auth: alice, body: '{"id":6,"name":""}', contentType: json, key: 'fid-400' },
  ]),
  [
    'keyed create corrected under the same key',
    { method: 'POST', path: '/plants', auth: alice, body: '{"id":6,"name":"x"}', contentType: json, key: 'fid-400' },
  ],
  ...(['first', 'again'] as const).map((round): [string, Probe] => [
    `keyed create that is not JSON (${round})`,
    { method: 'POST', path: '/plants', auth: alice, body: '{"id":', contentType: json, key: 'fid-400-json' },
  ]),
  [
    'keyed create with a malformed key and a bad body',
    { method: 'POST', path: '/plants', auth: alice, body: '{"id":6,"name":""}', contentType: json, key: 'a b' },
  ],
  // A malformed key with a good body: the 400 names the header by the rule it breaks, as the service's validation does.
  ...(['a b', 'k'.repeat(256)] as const).map((key): [string, Probe] => [
    `keyed create with a malformed key (${key.length} characters)`,
    { method: 'POST', path: '/plants', auth: alice, body: '{"id":7,"name":"x"}', contentType: json, key },
  ]),
  // Caller-chosen names are cut short alike (a 15 KB unknown field under a key, kept and replayed; a long query
  // parameter; a long path).
  ...(['first', 'again'] as const).map((round): [string, Probe] => [
    `keyed create with a 15 KB unknown field name (${round})`,
    {
      method: 'POST',
      path: '/plants',
      auth: alice,
      body: `{"id":8,"name":"x","${'f'.repeat(15 * 1024)}":1}`,
      contentType: json,
      key: 'fid-400-long-name',
    },
  ]),
  ['long unknown query parameter', { method: 'GET', path: `/plants?${'q'.repeat(2000)}=1`, auth: alice }],
  ['long unknown route', { method: 'GET', path: `/${'t'.repeat(2000)}`, auth: alice }],
  ['unknown route', { method: 'GET', path: '/trees', auth: alice }],
  ['method not allowed', { method: 'PUT', path: '/plants', auth: alice }],
  ['method not allowed on id', { method: 'GET', path: '/plants/1', auth: alice }],
];

describe('the fake answers like the service', () => {
  let real: Target;
  let fake: Target;
  beforeAll(() => {
    real = target(server.url, globalThis.fetch, (subject, readOnly) =>
      server.token(subject, readOnly ? ['read'] : undefined),
    );
    const store = createFakePlantStore();
    fake = target('http://plant-store.test', store.fetch, async (subject, readOnly) =>
      store.createToken({ subject, ...(readOnly ? { scopes: ['read'] } : {}) }),
    );
  });

  const statuses = new Set<number>();
  // In order: the probes build on each other's state (creates, then lists and deletes).
  it.each(PROBES)('%s', async (_name, probe) => {
    const [fromService, fromFake] = [await real(probe), await fake(probe)];
    expect(fromFake).toEqual(fromService);
    statuses.add(fromService.status);
  });

  it('sends the broken rule as details on a 400, the same from both', async () => {
    const cases: Array<[Probe, unknown]> = [
      [
        {
          method: 'POST',
          path: '/plants',
          auth: alice,
          body: JSON.stringify({ id: 5, name: 'x'.repeat(201) }),
          contentType: json,
        },
        [{ location: 'body', field: 'name', rule: 'maxLength', limit: 200 }],
      ],
      [
        { method: 'POST', path: '/plants', auth: alice, body: '{"id":5,"name":"x","colour":"red"}', contentType: json },
        [{ location: 'body', field: 'colour', rule: 'unknownField' }],
      ],
      [
        { method: 'GET', path: '/plants?limit=0', auth: alice },
        [{ location: 'query', field: 'limit', rule: 'minimum', limit: 1 }],
      ],
      [{ method: 'DELETE', path: '/plants/x', auth: alice }, [{ location: 'path', field: 'id', rule: 'type' }]],
      [
        { method: 'DELETE', path: '/plants/9223372036854775808', auth: alice },
        [{ location: 'path', field: 'id', rule: 'int64' }],
      ],
      [
        { method: 'GET', path: '/plants?limit=0x3', auth: alice },
        [{ location: 'query', field: 'limit', rule: 'type' }],
      ],
    ];
    for (const [probe, details] of cases) {
      const fromService = await real(probe);
      expect(fromService.body).toMatchObject({ error: 400, details });
      expect(await fake(probe)).toEqual(fromService);
    }
  });

  it('covered every status the contract documents', () => {
    expect([...statuses].sort()).toEqual([200, 204, 400, 401, 403, 404, 405, 409, 413, 415, 422]);
  });

  it('pages through 25 plants with the same Link headers and cursors the service gives', async () => {
    const subject = { subject: 'fidelity-pager' };
    for (let id = 25; id >= 1; id--) {
      const probe = {
        method: 'POST',
        path: '/plants',
        auth: subject,
        body: `{"id":${id},"name":"p${id}"}`,
        contentType: json,
      };
      expect((await fake(probe)).status).toBe((await real(probe)).status);
    }
    let path: string | undefined = '/plants?limit=10';
    let pages = 0;
    while (path) {
      const probe: Probe = { method: 'GET', path, auth: subject };
      const fromService = await real(probe);
      expect(await fake(probe)).toEqual(fromService);
      const link: string | null | undefined = fromService.headers.link;
      path = /^<([^>]+)>/.exec(link ?? '')?.[1];
      pages++;
    }
    expect(pages).toBe(3);
  });
});
