// The packed SDK in a real browser: a page on one loopback origin, bundled from the tarball's dist, creates, lists
// and deletes plants on the service at another origin (CORS configured), in Debian's headless Chromium; and the
// testing kit from the same tarball runs in that browser with no service at all.
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { launchChromium, startTestServer, type TestServer } from '@plant-store/test-kit';
import { build } from 'esbuild';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, expect, it } from 'vitest';

const run = promisify(execFile);
const sdkDir = new URL('..', import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), 'plant-store-sdk-browser-'));
let bundle = '';
let pageServer: Server;
let pageOrigin: string;
let api: TestServer;

const PAGE = `<!doctype html><html><head><title>loading</title></head><body>
<ul id="plants"></ul><p id="status"></p>
<script type="module">
  import { createPlantStoreClient, NotFoundError } from '/sdk.js';
  const params = new URLSearchParams(location.search);
  let attempts = 0;
  const client = createPlantStoreClient({
    baseUrl: params.get('api'),
    token: params.get('token'),
    fetch: (request) => {
      attempts++;
      return fetch(request);
    },
  });
  try {
    await client.plants.create({ id: 1, name: 'Monstera', tag: 'indoor' });
    await client.plants.create({ id: 9223372036854775807n, name: 'Cactus' });
    await client.plants.create({ id: 2, name: 'Basil' });
    await client.plants.delete(2);
    const missing = await client.plants.delete(2).catch((error) => error);
    // One plant per page: the second only arrives if the cross-origin page can read the Link header.
    for await (const plant of client.plants.listAll({ pageSize: 1 })) {
      const item = document.createElement('li');
      item.textContent = plant.tag ? plant.name + ' (' + plant.tag + ')' : plant.name;
      document.getElementById('plants').append(item);
    }
    document.getElementById('status').textContent =
      (missing instanceof NotFoundError ? 'not found' : 'unexpected') + ' / request id ' + (missing.requestId ? 'seen' : 'hidden');
    document.title = 'done';
  } catch (error) {
    // A read refused the same way: counted, to show it is not retried.
    const before = attempts;
    const listed = await client.plants.list().catch((e) => e);
    document.getElementById('status').textContent =
      'failed: ' + error + ' / list: ' + listed.name + ' after ' + (attempts - before) + ' attempt(s)';
    document.title = 'failed';
  }
</script></body></html>`;

// The testing kit in the same browser, no service at all: what a component test in vitest browser mode would do.
const KIT_PAGE = `<!doctype html><html><head><title>loading</title></head><body><script type="module">
  import { createPlantStoreClient, ConflictError } from '/kit.js';
  import { createFakePlantStore } from '/kit.js';
  try {
    const fake = createFakePlantStore();
    const client = createPlantStoreClient({ baseUrl: 'http://plant-store.test', token: fake.createToken({ subject: 'a' }), fetch: fake.fetch });
    await client.plants.create({ id: 9223372036854775807n, name: 'Cactus' });
    const again = await client.plants.create({ id: 9223372036854775807n, name: 'Cactus' }).catch((error) => error);
    const listed = await client.plants.list();
    document.title = JSON.stringify({ listed, conflict: again instanceof ConflictError, ids: fake.plantsOf('a').map((p) => String(p.id)) });
  } catch (error) {
    document.title = 'failed: ' + error;
  }
</script></body></html>`;
let kitBundle = '';

beforeAll(async () => {
  // The page loads what npm would install: pack, unpack, then bundle dist/index.js with openapi-fetch for the browser.
  await run('npx', ['-y', 'pnpm@10.34.9', 'pack', '--pack-destination', work], { cwd: sdkDir });
  const tarball = readdirSync(work).find((name) => name.endsWith('.tgz'))!;
  await run('tar', ['-xzf', tarball], { cwd: work });
  const result = await build({
    entryPoints: [join(work, 'package/dist/index.js')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    nodePaths: [join(sdkDir, 'node_modules')],
  });
  bundle = result.outputFiles[0]!.text;
  const kit = await build({
    stdin: {
      contents: "export * from './package/dist/index.js'; export * from './package/dist/testing.js';",
      resolveDir: work,
    },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    nodePaths: [join(sdkDir, 'node_modules')],
  });
  kitBundle = kit.outputFiles[0]!.text;

  pageServer = createServer((request, response) => {
    if (request.url?.startsWith('/sdk.js')) {
      response.writeHead(200, { 'content-type': 'text/javascript' }).end(bundle);
    } else if (request.url?.startsWith('/kit.js')) {
      response.writeHead(200, { 'content-type': 'text/javascript' }).end(kitBundle);
    } else if (request.url?.startsWith('/blank')) {
      response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>blank</title>');
    } else if (request.url?.startsWith('/kit')) {
      response.writeHead(200, { 'content-type': 'text/html' }).end(KIT_PAGE);
    } else {
      response.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
    }
  });
  await new Promise<void>((resolve) => pageServer.listen(0, '127.0.0.1', resolve));
  pageOrigin = `http://127.0.0.1:${(pageServer.address() as AddressInfo).port}`;
  api = await startTestServer({ env: { CORS_ORIGINS: pageOrigin, RATE_LIMIT_MAX: '0' } });
}, 120_000);

afterAll(async () => {
  await api?.close();
  pageServer?.close();
  rmSync(work, { recursive: true, force: true });
});

it('creates, lists and deletes plants from a page on another origin', async () => {
  const token = await api.token('browser-user');
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    const url = `${pageOrigin}/?api=${encodeURIComponent(api.url)}&token=${encodeURIComponent(token)}`;
    await page.goto(url);
    await page.waitForFunction(() => document.title !== 'loading', undefined, { timeout: 20_000 });
    const status = await page.textContent('#status');
    expect(status).toBe('not found / request id seen');
    expect(await page.$$eval('#plants li', (items) => items.map((item) => item.textContent))).toEqual([
      'Monstera (indoor)',
      'Cactus',
    ]);
  } finally {
    await browser.close();
  }
}, 60_000);

it('is refused by the browser when the page’s origin is not allowed', async () => {
  const closed = await startTestServer({ env: { RATE_LIMIT_MAX: '0' } });
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    const token = await closed.token('browser-denied');
    await page.goto(`${pageOrigin}/?api=${encodeURIComponent(closed.url)}&token=${encodeURIComponent(token)}`);
    await page.waitForFunction(() => document.title !== 'loading', undefined, { timeout: 20_000 });
    const status = await page.textContent('#status');
    expect(status).toContain('PlantStoreConnectionError');
    // The browser hides why; the SDK names the likely cause, and does not retry a read that CORS refused.
    expect(status).toContain('CORS');
    expect(status).toContain(pageOrigin);
    expect(status).toContain('list: PlantStoreConnectionError after 1 attempt(s)');
  } finally {
    await browser.close();
    await closed.close();
  }
}, 60_000);

it('runs the testing kit from the tarball in the browser, with no service', async () => {
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    await page.goto(`${pageOrigin}/kit`);
    await page.waitForFunction(() => document.title !== 'loading', undefined, { timeout: 20_000 });
    expect(JSON.parse(await page.title())).toEqual({
      listed: [{ name: 'Cactus' }],
      conflict: true,
      ids: ['9223372036854775807'],
    });
  } finally {
    await browser.close();
  }
}, 60_000);

it('verifies a webhook signed by standardwebhooks in the browser (Web Crypto only), with the exact id', async () => {
  const secret = `whsec_${Buffer.from('a 32-byte secret for the browser').toString('base64')}`;
  const body = '{"id":9223372036854775807,"name":"Cactus"}';
  const at = new Date();
  const headers = {
    'webhook-id': 'msg_browser',
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign('msg_browser', at, body),
  };
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    await page.goto(`${pageOrigin}/blank`);
    // A string, so the test runner's transform leaves its dynamic import alone.
    const outcome = await page.evaluate(`(async () => {
      const sdk = await import(location.origin + '/sdk.js');
      const [body, headers, secret] = ${JSON.stringify([body, headers, secret])};
      const plant = await sdk.verifyWebhook(body, headers, secret);
      const refused = await sdk.verifyWebhook(body.replace('Cactus', 'Fake'), headers, secret).catch((error) => error);
      return [typeof plant.id, String(plant.id), plant.name, refused instanceof sdk.WebhookVerificationError];
    })()`);
    expect(outcome).toEqual(['bigint', '9223372036854775807', 'Cactus', true]);
  } finally {
    await browser.close();
  }
}, 60_000);
