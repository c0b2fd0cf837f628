// The /docs page in a real headless Chromium: it renders the three operations and the webhook, with every asset from
// the service.

import { launchChromium, startTestServer, type TestServer } from '@plant-store/test-kit';
import { afterAll, beforeAll, expect, it } from 'vitest';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

it('lists createPlant, getPlants, deletePlant and the new-plant webhook on /docs, loading nothing from other hosts and logging no console error', async () => {
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    // A console error (a CSP violation above all) makes a reference page look broken to whoever opens the console.
    const errors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    page.on('pageerror', (error) => errors.push(error.message));
    const foreign: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith(server.url) && !request.url().startsWith('data:')) foreign.push(request.url());
    });
    const answer = await page.goto(`${server.url}/docs`);
    // Clean without weakening the policy: no 'unsafe-inline' anywhere, scripts from the service alone.
    const policy = (await answer!.allHeaders())['content-security-policy'] ?? '';
    expect(policy).toMatch(/script-src 'self' *;/);
    expect(policy).not.toContain('unsafe-inline');
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
    // Every script and stylesheet has loaded and run by the time the operations show; a last turn for late reports.
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0))));
    expect(errors).toEqual([]);
  } finally {
    await browser.close();
  }
}, 60_000);
