// The whole app on the memory engine (DATABASE_URL=memory:): the service's handlers answer through inject with the
// same answers the SQL engines give.
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { issueToken } from '../../../src/auth/tokens.js';
import { loadConfig } from '../../../src/config.js';
import { openStore } from '../../../src/store/open-store.js';

describe('the app on the memory engine', () => {
  it('serves the three operations through the handlers', async () => {
    const store = await openStore('memory:');
    const config = loadConfig({ DATABASE_URL: 'memory:', LOG_LEVEL: 'silent' });
    const app = await buildApp({ config, store });
    const { token } = await issueToken(store.tokens, { subject: 'alice' });
    const auth = { authorization: `Bearer ${token}` };
    const created = await app.inject({
      method: 'POST',
      url: '/plants',
      headers: auth,
      payload: { id: 1, name: 'Fern' },
    });
    expect(created.statusCode).toBe(200);
    const conflict = await app.inject({ method: 'POST', url: '/plants', headers: auth, payload: { id: 1, name: 'F' } });
    expect(conflict.statusCode).toBe(409);
    await app.inject({ method: 'POST', url: '/plants', headers: auth, payload: { id: 2, name: 'Ivy' } });
    const page = await app.inject({ method: 'GET', url: '/plants?limit=1', headers: auth });
    expect(page.json()).toEqual([{ name: 'Fern' }]);
    expect(page.headers.link).toMatch(/^<\/plants\?limit=1&cursor=[A-Za-z0-9_-]+>; rel="next"$/);
    expect((await app.inject({ method: 'DELETE', url: '/plants/1', headers: auth })).statusCode).toBe(204);
    expect((await app.inject({ method: 'DELETE', url: '/plants/1', headers: auth })).statusCode).toBe(404);
    const ready = await app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.json()).toMatchObject({ status: 'ok', database: 'memory' });
    await app.close();
  });
});
