// A body sent to a route that does not exist, or with a method the route does not allow, is never
// read: the 404 / 405 comes as soon as the headers are in, and the connection is closed behind it.
import { startTestServer, type TestServer } from '@plant-store/test-kit';
import { openRaw, parseAnswers } from '@plant-store/test-kit/raw-socket';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

describe('unknown routes and refused methods', () => {
  it.each([
    ['POST', '/no-such-route', 404],
    ['POST', '/healthz', 404],
    ['POST', '/plants/1', 405],
    ['PUT', '/plants', 405],
  ])('answers %s %s with %i before the body arrives, then closes', async (method, path, status) => {
    const connection = await openRaw(server.url);
    // Headers promise 16 KB that never come: an answer can only come from not reading the body.
    connection.socket.write(
      `${method} ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 16000\r\n\r\n{"a":`,
    );
    const started = Date.now();
    const { text, closed } = await connection.closed(3_000);
    expect(Date.now() - started).toBeLessThan(2_000);
    const [answer, ...more] = parseAnswers(text);
    expect(answer?.status).toBe(status);
    expect(JSON.parse(answer!.body)).toEqual({ error: status, message: expect.any(String) });
    expect(answer?.headers.connection).toBe('close');
    expect(answer?.headers['x-request-id']).toBeDefined();
    expect(more).toEqual([]);
    expect(closed).toBe(true);
  });
});
