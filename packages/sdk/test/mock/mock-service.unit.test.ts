// The mock server's service without a socket: which origins get CORS, the preflight's grant, HEAD, the seed file's
// checks and the token, all through its fetch.
import { CONTRACT_METHODS, CORS_ALLOWED_HEADERS, CORS_EXPOSED_HEADERS } from '@plant-store/contract';
import { describe, expect, it } from 'vitest';
import { corsAllows, createMockService, MOCK_SUBJECT } from '../../src/mock/mock-service.js';

const BASE = 'http://mock.test';

describe('corsAllows', () => {
  it.each([
    ['http://localhost:5173', [], true],
    ['https://localhost', [], true],
    ['http://127.0.0.1:3000', [], true],
    ['http://[::1]:8080', [], true],
    ['http://localhost.evil.example', [], false],
    ['http://127.0.0.2:3000', [], false],
    ['file://localhost', [], false],
    ['null', [], false],
    ['https://app.example.com', ['https://app.example.com'], true],
    ['https://other.example.com', ['https://app.example.com'], false],
    ['https://anything.example', ['*'], true],
  ] as const)('%s with %j granted: %s', (origin, granted, allowed) => {
    expect(corsAllows(origin, granted)).toBe(allowed);
  });
});

describe('createMockService', () => {
  it('grants a preflight the contract methods and the headers the service allows, exposing its answer headers', async () => {
    const mock = createMockService({ token: 't1' });
    const preflight = await mock.fetch(
      new Request(`${BASE}/plants`, {
        method: 'OPTIONS',
        headers: { origin: 'http://localhost:5173', 'access-control-request-method': 'DELETE' },
      }),
    );
    expect(preflight.status).toBe(204);
    expect(Object.fromEntries(preflight.headers)).toMatchObject({
      'access-control-allow-origin': 'http://localhost:5173',
      'access-control-allow-methods': CONTRACT_METHODS.join(', '),
      'access-control-allow-headers': CORS_ALLOWED_HEADERS.join(', '),
      'access-control-max-age': '600',
      vary: 'Origin',
    });
    const listed = await mock.fetch(
      new Request(`${BASE}/plants`, { headers: { origin: 'http://localhost:5173', authorization: 'Bearer t1' } }),
    );
    expect(listed.headers.get('access-control-expose-headers')).toBe(CORS_EXPOSED_HEADERS.join(', '));
  });

  it('answers * with * and sends no CORS headers without an Origin', async () => {
    const any = createMockService({ token: 't1', corsOrigins: ['*'] });
    const request = (origin?: string) =>
      new Request(`${BASE}/plants`, { headers: { authorization: 'Bearer t1', ...(origin ? { origin } : {}) } });
    expect((await any.fetch(request('https://x.example'))).headers.get('access-control-allow-origin')).toBe('*');
    const plain = await any.fetch(request());
    expect([...plain.headers.keys()].filter((name) => name.startsWith('access-control-'))).toEqual([]);
  });

  it('answers HEAD as GET without a body', async () => {
    const mock = createMockService({ token: 't1', seed: '[{"id": 1, "name": "Fern"}]' });
    const head = await mock.fetch(
      new Request(`${BASE}/plants`, { method: 'HEAD', headers: { authorization: 'Bearer t1' } }),
    );
    expect(head.status).toBe(200);
    expect(head.headers.get('etag')).toMatch(/^W\//);
    expect(await head.text()).toBe('');
  });

  it('seeds the token subject with exact ids from the file text', () => {
    const mock = createMockService({ seed: '[{"id": 9007199254740993, "name": "Fern", "tag": "indoor"}]' });
    expect(mock.fake.plantsOf(MOCK_SUBJECT)).toEqual([{ id: 9007199254740993n, name: 'Fern', tag: 'indoor' }]);
    expect(mock.token).toMatch(/^fake_/);
  });

  it.each([
    ['{"id": 1', /^the seed file is not valid JSON: /],
    ['{"id": 1, "name": "Fern"}', /^the seed file must hold a JSON array of plants/],
    ['[{"id": 1, "name": "Fern", "colour": "green"}]', /^the seed file: .*colour/],
    ['[{"id": "1", "name": "Fern"}]', /^the seed file: .*id/],
  ])('refuses the seed %s', (seed, message) => {
    expect(() => createMockService({ seed })).toThrow(message);
  });

  it('refuses a token the service could never read from an Authorization header', () => {
    expect(() => createMockService({ token: 'two words' })).toThrow('"two words" is not a bearer token (RFC 6750)');
    expect(createMockService({ token: 'abc.DEF-~+/==' }).token).toBe('abc.DEF-~+/==');
  });
});
