// "Try it out" on /docs in a real headless Chromium, under the page's own CSP: Authorize with a token, Try it out on
// GET /plants, Execute, and the page shows the 200 and the plants. The service listens on a port that is not the
// contract's example server (http://localhost:3000), directly and behind a proxy that adds a path prefix.

import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { launchChromium, startTestServer, type TestServer } from '@plant-store/test-kit';
import { afterAll, beforeAll, expect, it } from 'vitest';

let server: TestServer;
let token: string;
let proxy: Server;
let proxyUrl: string;

/** A reverse proxy that serves the service under /plant-store/ (strips the prefix, as nginx's `proxy_pass .../`). */
function startPrefixProxy(target: URL, prefix: string): Promise<Server> {
  const proxyServer = createServer((incoming, outgoing) => {
    const url = incoming.url ?? '/';
    if (!url.startsWith(`${prefix}/`)) {
      outgoing.writeHead(404).end('not under the prefix');
      return;
    }
    const forwarded = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method: incoming.method,
        path: url.slice(prefix.length),
        headers: { ...incoming.headers, host: target.host },
      },
      (answer) => {
        const headers = { ...answer.headers };
        // A redirect the service sends names its own root; the proxy puts its prefix in front, as proxy_redirect does.
        if (typeof headers.location === 'string' && headers.location.startsWith('/')) {
          headers.location = `${prefix}${headers.location}`;
        }
        outgoing.writeHead(answer.statusCode ?? 502, headers);
        answer.pipe(outgoing);
      },
    );
    forwarded.on('error', () => outgoing.writeHead(502).end());
    incoming.pipe(forwarded);
  });
  return new Promise((resolve) => proxyServer.listen(0, '127.0.0.1', () => resolve(proxyServer)));
}

beforeAll(async () => {
  server = await startTestServer();
  token = await server.token('docs-reader');
  for (const [id, name] of [
    [1, 'Fern'],
    [2, 'Monstera'],
  ] as const) {
    const created = await fetch(`${server.url}/plants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ id, name, tag: 'indoor' }),
    });
    expect(created.status).toBe(200);
  }
  proxy = await startPrefixProxy(new URL(server.url), '/plant-store');
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/plant-store`;
});
afterAll(async () => {
  await new Promise((resolve) => proxy?.close(resolve));
  await server?.close();
});

/**
 * Authorize, Try it out on GET /plants, Execute; returns the status and body the page shows, what was called, and the
 * console's errors.
 */
async function tryGetPlants(docsUrl: string) {
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    const called: string[] = [];
    const blocked: string[] = [];
    page.on('request', (request) => {
      if (request.url().includes('/plants')) called.push(request.url().split('?')[0] ?? '');
    });
    // Any console error counts (a CSP violation of connect-src or style-src, a failed fetch): none is expected.
    page.on('console', (message) => {
      if (message.type() === 'error') blocked.push(message.text());
    });
    page.on('pageerror', (error) => blocked.push(error.message));
    await page.goto(docsUrl);
    await page.locator('button.authorize').first().click();
    await page.locator('.modal-ux input[type="text"], .modal-ux input:not([type])').first().fill(token);
    await page.locator('.modal-ux .auth-btn-wrapper button.authorize').click();
    await page.locator('.modal-ux button.btn-done').click();

    const operation = page.locator('.opblock-get').filter({ hasText: 'getPlants' });
    await operation.locator('.opblock-summary').click();
    await operation.locator('button.try-out__btn').click();
    await operation.locator('button.execute').click();
    const status = operation.locator('.live-responses-table tr.response .response-col_status').first();
    await status.waitFor({ timeout: 20_000 });
    const body = await operation
      .locator('.live-responses-table tr.response .response-col_description pre')
      .first()
      .textContent();
    return { status: (await status.textContent())?.trim(), body: body ?? '', called, blocked };
  } finally {
    await browser.close();
  }
}

it('executes GET /plants from /docs against the port that served the page and shows the 200 and the plants', async () => {
  expect(new URL(server.url).port).not.toBe('3000');
  const shown = await tryGetPlants(`${server.url}/docs`);
  expect(shown.blocked).toEqual([]);
  expect(shown.called).toEqual([`${server.url}/plants`]);
  expect(shown.status).toBe('200');
  expect(shown.body).toContain('Fern');
  expect(shown.body).toContain('Monstera');
}, 90_000);

it('executes GET /plants from /docs behind a proxy with a path prefix, through the prefix', async () => {
  const shown = await tryGetPlants(`${proxyUrl}/docs/`);
  expect(shown.blocked).toEqual([]);
  expect(shown.called).toEqual([`${proxyUrl}/plants`]);
  expect(shown.status).toBe('200');
  expect(shown.body).toContain('Fern');
  expect(shown.body).toContain('Monstera');
}, 90_000);
