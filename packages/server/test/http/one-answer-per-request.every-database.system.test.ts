// Over a real socket: answers come in request order and one per request, raw answers
// carry the contract's Error shape and headers, and `100 Continue` is sent only once the body will be read.
import { startTestServer, type TestServer } from '@plant-store/test-kit';
import { openRaw, parseAnswers } from '@plant-store/test-kit/raw-socket';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let server: TestServer;
let token: string;
let readOnly: string;

beforeAll(async () => {
  server = await startTestServer({ env: { REQUEST_TIMEOUT_MS: '1000' } });
  token = await server.token('sockets');
  readOnly = await server.token('reader', ['read']);
});
afterAll(async () => {
  await server?.close();
});

const post = (body: string, auth: string, extra = '') =>
  `POST /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${auth}\r\nContent-Type: application/json\r\n` +
  `Content-Length: ${Buffer.byteLength(body)}\r\n${extra}\r\n${body}`;

describe('a malformed request pipelined behind a valid create', () => {
  it('answers the create first, then the 400, then closes; the create is stored', async () => {
    const connection = await openRaw(server.url);
    connection.socket.write(`${post('{"id":501,"name":"first"}', token)}GARBAGE / HTTP/9\r\n\r\n`);
    const { text, closed } = await connection.closed(3_000);
    const answers = parseAnswers(text);
    expect(answers.map((answer) => answer.status)).toEqual([200, 400]);
    expect(JSON.parse(answers[0]!.body)).toEqual({ name: 'first' });
    expect(JSON.parse(answers[1]!.body)).toEqual({ error: 400, message: expect.any(String) });
    expect(closed).toBe(true);
    const list = await fetch(`${server.url}/plants`, { headers: { authorization: `Bearer ${token}` } });
    expect(await list.json()).toContainEqual({ name: 'first' });
  });
});

describe('an early answer while the body is still uploading', () => {
  it('gives exactly one answer (401) and closes; no 408 follows', async () => {
    const connection = await openRaw(server.url);
    connection.socket.write(
      'POST /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer nope\r\nContent-Type: application/json\r\n' +
        'Content-Length: 10000\r\n\r\n{"id":1,',
    );
    // Keep trickling body bytes for longer than the request timeout (1 s).
    const trickle = setInterval(() => connection.socket.writable && connection.socket.write(' '), 100);
    const { text, closed } = await connection.closed(2_500);
    clearInterval(trickle);
    const answers = parseAnswers(text);
    expect(answers.map((answer) => answer.status)).toEqual([401]);
    expect(answers[0]!.headers.connection).toBe('close');
    expect(closed).toBe(true);
  });
});

describe('raw answers to unparseable requests', () => {
  it('carry the Error shape, x-request-id, nosniff and no-store', async () => {
    const connection = await openRaw(server.url);
    connection.socket.write('NOT HTTP AT ALL\r\n\r\n');
    const { text } = await connection.closed(2_000);
    const [answer] = parseAnswers(text);
    expect(answer?.status).toBe(400);
    expect(JSON.parse(answer!.body)).toEqual({ error: 400, message: expect.any(String) });
    expect(answer?.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(answer?.headers['x-content-type-options']).toBe('nosniff');
    expect(answer?.headers['cache-control']).toBe('no-store');
  });
  it('answers /plants/%zz over the socket in the Error shape', async () => {
    const response = await fetch(`${server.url}/plants/%zz`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(response.status).toBe(400);
    expect(response.headers.get('x-request-id')).toBeTruthy();
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await response.json()).toEqual({ error: 400, message: expect.any(String) });
  });
});

describe('Expect: 100-continue', () => {
  const expectHeaders = (auth: string, length: number) =>
    `POST /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${auth}\r\nContent-Type: application/json\r\n` +
    `Content-Length: ${length}\r\nExpect: 100-continue\r\n\r\n`;

  it.each([
    ['a bad token', 'nope', 20, 401],
    ['a token without the write scope', 'READ', 20, 403],
    ['a body over the limit', 'WRITE', 20_000, 413],
  ])('refuses %s without sending 100 Continue first', async (_what, auth, length, status) => {
    const connection = await openRaw(server.url);
    const bearer = auth === 'READ' ? readOnly : auth === 'WRITE' ? token : auth;
    connection.socket.write(expectHeaders(bearer, length));
    await connection.waitFor(/\r\n\r\n\{.*\}/s, 3_000);
    const text = connection.received();
    expect(text).not.toContain('100 Continue');
    expect(parseAnswers(text)[0]?.status).toBe(status);
    connection.socket.destroy();
  });

  it('sends 100 Continue when the body will be read, then answers it', async () => {
    const body = '{"id":1501,"name":"continued"}';
    const connection = await openRaw(server.url);
    connection.socket.write(expectHeaders(token, Buffer.byteLength(body)));
    await connection.waitFor(/^HTTP\/1\.1 100 Continue\r\n\r\n$/, 3_000);
    connection.socket.write(body);
    await connection.waitFor(/HTTP\/1\.1 200/, 3_000);
    connection.socket.destroy();
  });
});
