// The conformance client against a deployment that never stops sending: it reads an answer as it streams in and
// stops at MAX_ANSWER_BYTES, so the deployment cannot take the checker's memory (or its time) with it.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { AnswerTooLarge, HttpClient, MAX_ANSWER_BYTES } from '../src/http-client.js';

const CHUNK = Buffer.alloc(64 * 1024, 'x');
let sent = 0;
let stopped: Promise<void>;
const server = createServer((_request, response) => {
  stopped = new Promise((resolve) => response.once('close', resolve));
  response.writeHead(200, { 'content-type': 'application/json' });
  // Endless: another chunk whenever the socket takes one, until the client hangs up.
  const more = () => {
    while (!response.destroyed) {
      sent += CHUNK.length;
      if (!response.write(CHUNK)) return;
    }
  };
  response.on('drain', more);
  more();
});
let baseUrl: URL;

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});
afterAll(
  () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
);

it('stops reading an endless answer at 16 MiB, hangs up, and says why', async () => {
  const client = new HttpClient({ baseUrl, tokens: {}, timeoutMs: 20_000 });
  const error = await client.send({ method: 'GET', target: '/plants' }).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(AnswerTooLarge);
  expect((error as Error).message).toBe(
    `GET ${baseUrl.origin}/plants: the answer is larger than 16 MiB; stopped reading there`,
  );
  // The connection was closed: the server stopped sending soon after the cap, not at the timeout.
  await stopped;
  expect(sent).toBeGreaterThan(MAX_ANSWER_BYTES);
  expect(sent).toBeLessThan(2 * MAX_ANSWER_BYTES);
});
