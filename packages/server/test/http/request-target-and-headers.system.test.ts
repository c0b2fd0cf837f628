// Over a real socket: the Link header comes from the route's path, never from the request
// target, and two Authorization headers are a 400 rather than "the first wins".
import { FRAGMENT_IN_TARGET_MESSAGE } from '@plant-store/contract';
import { startTestServer, type TestServer } from '@plant-store/test-kit';
import { openRaw, parseAnswers } from '@plant-store/test-kit/raw-socket';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let server: TestServer;
let token: string;

beforeAll(async () => {
  server = await startTestServer();
  token = await server.token('targets');
  for (const id of [1, 2, 3]) {
    const response = await fetch(`${server.url}/plants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ id, name: `p${id}` }),
    });
    expect(response.status).toBe(200);
  }
});
afterAll(async () => {
  await server?.close();
});

async function rawGet(target: string, headers: string): Promise<ReturnType<typeof parseAnswers>[number]> {
  const connection = await openRaw(server.url);
  connection.socket.write(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\n${headers}Connection: close\r\n\r\n`);
  const { text } = await connection.closed(3_000);
  return parseAnswers(text)[0]!;
}

describe('the Link header', () => {
  it('points at /plants on this service for an absolute-form target, whatever its host', async () => {
    const answer = await rawGet('http://evil.example/plants?limit=1', `Authorization: Bearer ${token}\r\n`);
    expect(answer.status).toBe(200);
    expect(answer.headers.link).toMatch(/^<\/plants\?limit=1&cursor=[A-Za-z0-9_-]+>; rel="next"$/);
  });
  // A fragment is no part of a request-target (RFC 9112 section 3.2: origin-form is absolute-path ["?" query], and
  // neither may hold "#"; a fragment stays with the client, RFC 9110 section 7.1): the request is a 400 in the contract's
  // Error shape, saying so, with no Link, wherever the "#" stands.
  it.each(['/plants#frag', '/plants#frag?limit=1', '/plants?limit=1#frag'])(
    'is refused with a 400 that says so, for the target %s',
    async (target) => {
      const answer = await rawGet(target, `Authorization: Bearer ${token}\r\n`);
      expect(answer.status).toBe(400);
      expect(answer.headers.link).toBeUndefined();
      expect(JSON.parse(answer.body)).toEqual({ error: 400, message: FRAGMENT_IN_TARGET_MESSAGE });
    },
  );
});

describe('two Authorization headers', () => {
  it('answer 400 invalid_request, whichever is valid', async () => {
    for (const headers of [
      `Authorization: Bearer ${token}\r\nAuthorization: Bearer other\r\n`,
      `Authorization: Bearer other\r\nAuthorization: Bearer ${token}\r\n`,
      `Authorization: Bearer ${token}\r\nauthorization: Bearer ${token}\r\n`,
    ]) {
      const answer = await rawGet('/plants', headers);
      expect(answer.status).toBe(400);
      expect(JSON.parse(answer.body)).toEqual({ error: 400, message: expect.stringContaining('exactly one') });
      expect(answer.headers['www-authenticate']).toContain('invalid_request');
    }
  });
});
