// The /docs page in a real headless Chromium: it renders the three operations and the webhook, with every asset from
// the service.

import { launchChromium, startTestServer, type TestServer } from '@plant-store/test-kit';
import { afterAll, beforeAll, expect, it } from 'vitest';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

it('lists createPlant, getPlants, deletePlant and the new-plant webhook on /docs, loading nothing from other hosts', async () => {
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    const foreign: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith(server.url) && !request.url().startsWith('data:')) foreign.push(request.url());
    });
    await page.goto(`${server.url}/docs`);
    await page.waitForSelector('.opblock-summary', { timeout: 20_000 });
    const operations = await page.$$eval('.opblock-summary', (nodes) => nodes.map((node) => node.textContent ?? ''));
    expect(operations).toHaveLength(4);
    const text = operations.join('\n');
    for (const expected of [
      'POST/plants',
      'GET/plants',
      'DELETE/plants/{id}',
      'createPlant',
      'getPlants',
      'deletePlant',
      'POST/plant/webhook',
    ]) {
      expect(text).toContain(expected);
    }
    expect(foreign).toEqual([]);
  } finally {
    await browser.close();
  }
}, 60_000);
