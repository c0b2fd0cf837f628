// What an error's message says when the answer is not the contract's Error body: a proxy's HTML page is the status and
// a short excerpt of its text, never the whole page.

import { scriptedFetch } from '@plant-store/test-kit/scripted-fetch';
import { expect, it } from 'vitest';
import { createPlantStoreClient, InternalServerError, type PlantStoreError } from '../src/index.js';

const NGINX_502 = `<html>
<head><title>502 Bad Gateway</title><style>body { width: 35em; margin: 0 auto; }</style></head>
<body>
<center><h1>502 Bad Gateway</h1></center>
<hr><center>nginx/1.25.3</center>
${'<!-- a padding comment to keep browsers from showing their own page -->\n'.repeat(6)}</body>
</html>`;

const client = (answer: Response) =>
  createPlantStoreClient({
    baseUrl: 'http://plants.test',
    token: 't',
    fetch: scriptedFetch(answer).fetch,
    retry: { maxRetries: 0 },
  });

it("words a proxy's 502 HTML page as the status and a short excerpt of its text", async () => {
  const answer = new Response(NGINX_502, {
    status: 502,
    statusText: 'Bad Gateway',
    headers: { 'content-type': 'text/html' },
  });
  const error = (await client(answer)
    .plants.list()
    .catch((e: unknown) => e)) as PlantStoreError;
  expect(error).toBeInstanceOf(InternalServerError);
  expect(error.status).toBe(502);
  expect(error.message).toMatch(/^HTTP 502 Bad Gateway: 502 Bad Gateway 502 Bad Gateway nginx\/1\.25\.3/);
  expect(error.message).not.toMatch(/[<>]|width/);
  expect(error.message.length).toBeLessThanOrEqual(150);
});

it('cuts a long plain-text answer to an excerpt after the status', async () => {
  const answer = new Response(`upstream failed: ${'x'.repeat(5000)}`, {
    status: 503,
    statusText: 'Service Unavailable',
  });
  const error = (await client(answer)
    .plants.list()
    .catch((e: unknown) => e)) as PlantStoreError;
  expect(error.message).toMatch(/^HTTP 503 Service Unavailable: upstream failed: x+…$/);
  expect(error.message.length).toBeLessThanOrEqual(150);
});
