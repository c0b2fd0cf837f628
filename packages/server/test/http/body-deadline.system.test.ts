// A request whose body never finishes arriving is cut off: at REQUEST_TIMEOUT_MS it gets the contract's 408 and its
// connection is closed (nginx's client_body_timeout), whether the body was framed by Content-Length or chunked, and
// after `Expect: 100-continue` too. A client that goes away mid-body releases its socket at once, and a shutdown is
// never held by a half-sent body.
import { startTestServer, type TestServer } from '@plant-store/test-kit';
import { openRaw, parseAnswers } from '@plant-store/test-kit/raw-socket';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const REQUEST_TIMEOUT_MS = 1_000;
let server: TestServer;
let token: string;
/** A server whose request timeout cannot explain a quick close. */
let patient: TestServer;
let patientToken: string;

beforeAll(async () => {
  server = await startTestServer({ env: { REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS) } });
  token = await server.token('body-deadline');
  patient = await startTestServer({ env: { REQUEST_TIMEOUT_MS: '60000' } });
  patientToken = await patient.token('body-deadline');
});
afterAll(async () => {
  await server?.close();
  await patient?.close();
});

const connections = () =>
  new Promise<number>((resolve, reject) =>
    patient.app.server.getConnections((error, count) => (error ? reject(error) : resolve(count))),
  );

async function settles(check: () => Promise<boolean>, timeoutMs: number): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    if (await check()) return Date.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`not settled within ${timeoutMs} ms`);
}

const HALF_SENT = {
  'Content-Length': (auth: string) =>
    `POST /plants HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"id":1,`,
  chunked: (auth: string) =>
    `POST /plants HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n8\r\n{"id":1,\r\n`,
  'a DELETE with a body': (auth: string) =>
    `DELETE /plants/1 HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nContent-Length: 50\r\n\r\n{`,
} as const;

describe('a request body that never completes', () => {
  it.each(Object.keys(HALF_SENT) as (keyof typeof HALF_SENT)[])(
    'answers 408 at the request timeout and closes the connection (%s)',
    async (framing) => {
      const connection = await openRaw(server.url);
      const started = Date.now();
      connection.socket.write(HALF_SENT[framing](`Authorization: Bearer ${token}\r\n`));
      const { text, closed } = await connection.closed(REQUEST_TIMEOUT_MS * 4);
      const elapsed = Date.now() - started;
      expect(closed).toBe(true);
      expect(elapsed).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 50);
      expect(elapsed).toBeLessThan(REQUEST_TIMEOUT_MS + 3_000);
      const [answer, ...more] = parseAnswers(text);
      expect(answer?.status).toBe(408);
      expect(JSON.parse(answer!.body)).toEqual({ error: 408, message: expect.any(String) });
      expect(answer?.headers.connection).toBe('close');
      expect(more).toEqual([]);
    },
  );

  it('answers 408 and closes after Expect: 100-continue was granted and no body came', async () => {
    const connection = await openRaw(server.url);
    connection.socket.write(
      `POST /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\n` +
        'Content-Length: 30\r\nExpect: 100-continue\r\n\r\n',
    );
    await connection.waitFor(/^HTTP\/1\.1 100 Continue\r\n\r\n/);
    const { text, closed } = await connection.closed(REQUEST_TIMEOUT_MS * 4);
    expect(closed).toBe(true);
    const [answer] = parseAnswers(text.replace(/^HTTP\/1\.1 100 Continue\r\n\r\n/, ''));
    expect(answer?.status).toBe(408);
  });

  it('releases the socket at once when the client goes away mid-body', async () => {
    await settles(async () => (await connections()) === 0, 5_000);
    const open = await Promise.all(Array.from({ length: 20 }, () => openRaw(patient.url)));
    for (const [i, connection] of open.entries()) {
      const framing = i % 2 === 0 ? HALF_SENT['Content-Length'] : HALF_SENT.chunked;
      connection.socket.write(framing(`Authorization: Bearer ${patientToken}\r\n`));
    }
    await settles(async () => (await connections()) === 20, 5_000);
    // Half-close (FIN): the client will send nothing more, so the request can never complete.
    for (const connection of open) connection.socket.end();
    const elapsed = await settles(async () => (await connections()) === 0, 10_000);
    expect(elapsed).toBeLessThan(2_000);
  });

  it('never holds a shutdown: the half-sent request is answered and closed at once', async () => {
    const own = await startTestServer({ env: { REQUEST_TIMEOUT_MS: '30000' } });
    try {
      const ownToken = await own.token('shutdown');
      const connection = await openRaw(own.url);
      connection.socket.write(HALF_SENT['Content-Length'](`Authorization: Bearer ${ownToken}\r\n`));
      await new Promise((resolve) => setTimeout(resolve, 200));
      const started = Date.now();
      await own.app.close();
      expect(Date.now() - started).toBeLessThan(2_000);
      const { text, closed } = await connection.closed(2_000);
      expect(closed).toBe(true);
      const [answer] = parseAnswers(text);
      expect(answer?.status).toBe(503);
      expect(answer?.headers.connection).toBe('close');
    } finally {
      await own.close().catch(() => {});
    }
  });
});
