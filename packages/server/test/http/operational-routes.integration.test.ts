// /docs/static/index.html with a query string redirected to itself forever (@fastify/swagger-ui
// 6.1.3 anchors its regex at the end of the URL). It now leads to the docs page in one step.
import { createTestApp, type TestApp } from '@plant-store/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

describe('/docs/static/index.html', () => {
  it.each([
    '/docs/static/index.html?x=1',
    '/docs/static/index.html',
    '/docs/static/index.html?a=1&b=/static/index.html',
  ])('redirects %s to the docs page, which answers 200', async (url) => {
    let location = url;
    const seen: string[] = [];
    for (let hop = 0; hop < 3; hop++) {
      const answer = await t.app.inject({ method: 'GET', url: location });
      if (answer.statusCode < 300 || answer.statusCode >= 400) {
        expect(answer.statusCode).toBe(200);
        expect(answer.headers['content-type']).toMatch(/^text\/html/);
        return;
      }
      seen.push(location);
      location = String(answer.headers.location);
      expect(seen).not.toContain(location);
    }
    throw new Error(`still redirecting after 3 hops: ${seen.join(' -> ')}`);
  });
});
