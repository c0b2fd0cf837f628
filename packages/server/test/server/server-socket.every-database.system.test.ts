// The service over a real loopback socket: the same contract with real HTTP, concurrency, timeouts and shutdown.
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer, waitFor } from '@plant-store/test-kit';
import { type ContractValidator, createContractValidator } from '@plant-store/test-kit/contract-validator';
import { startServerProcess } from '@plant-store/test-kit/server-process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueToken } from '../../src/auth/tokens.js';
import { openStore } from '../../src/store/open-store.js';

let server: TestServer;
let token: string;
let validator: ContractValidator;

beforeAll(async () => {
  server = await startTestServer({ env: { REQUEST_TIMEOUT_MS: '1000', RATE_LIMIT_MAX: '0' } });
  token = await server.token('socket');
  validator = await createContractValidator();
});
afterAll(() => server.close());

async function send(method: string, path: '/plants' | '/plants/{id}', url: string, body?: string) {
  const response = await fetch(`${server.url}${url}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body } : {}),
  });
  const text = await response.text();
  const headers = Object.fromEntries(response.headers.entries());
  expect(validator.check({ method, path, status: response.status, headers, body: text })).toEqual([]);
  return { status: response.status, text, headers };
}

describe('over a real socket', () => {
  it('creates, lists and deletes', async () => {
    expect((await send('POST', '/plants', '/plants', '{"id": 9223372036854775807, "name": "Max"}')).status).toBe(200);
    const listed = await send('GET', '/plants', '/plants');
    expect(JSON.parse(listed.text)).toEqual([{ name: 'Max' }]);
    expect((await send('DELETE', '/plants/{id}', '/plants/9223372036854775807')).status).toBe(204);
    expect((await send('DELETE', '/plants/{id}', '/plants/9223372036854775807')).status).toBe(404);
  });

  it('answers concurrent creates of one id with exactly one 200 and the rest 409', async () => {
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) => send('POST', '/plants', '/plants', `{"id": 4242, "name": "racer ${i}"}`)),
    );
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status === 409)).toHaveLength(49);
  });

  it('closes a connection that trickles its headers past the request timeout', async () => {
    const { port, hostname } = new URL(server.url);
    const socket = connect(Number(port), hostname);
    socket.write('GET /plants HTTP/1.1\r\nHost: x\r\n');
    const started = Date.now();
    const closed = await new Promise<string>((resolve) => {
      let data = '';
      socket.on('data', (chunk) => {
        data += chunk;
      });
      socket.on('close', () => resolve(data));
      const trickle = setInterval(() => socket.writable && socket.write('X-Slow: 1\r\n'), 200);
      socket.on('close', () => clearInterval(trickle));
    });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(closed).toMatch(/^HTTP\/1\.1 408 Request Timeout/);
    expect(closed).toContain('{"error":408,"message":"the request took too long to arrive"}');
  });

  it('answers a request that is not HTTP with a 400 in the Error shape', async () => {
    const { port, hostname } = new URL(server.url);
    const socket = connect(Number(port), hostname);
    socket.write('NOT HTTP AT ALL\r\n\r\n');
    const answer = await new Promise<string>((resolve) => {
      let data = '';
      socket.on('data', (chunk) => {
        data += chunk;
      });
      socket.on('close', () => resolve(data));
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request/);
    expect(answer).toContain('{"error":400,"message":"the request could not be parsed as HTTP"}');
  });
});

describe('the server process', () => {
  it('finishes an in-flight request on SIGTERM, then exits 0', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'plant-store-term-'));
    const databaseUrl = `sqlite:${join(dir, 'db.sqlite')}`;
    const setup = await openStore(databaseUrl);
    await setup.migrate();
    const { token: termToken } = await issueToken(setup.tokens, { subject: 'term' });
    await setup.close();
    // debug with the access log: the "incoming request" line says when the headers have been read.
    const proc = await startServerProcess({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'debug', ACCESS_LOG: 'true' });
    const { port } = new URL(proc.url);
    const body = '{"id": 1, "name": "in flight"}';
    const socket = connect(Number(port), '127.0.0.1');
    const answer = new Promise<string>((resolve) => {
      let data = '';
      socket.on('data', (chunk) => {
        data += chunk;
      });
      socket.on('close', () => resolve(data));
    });
    socket.write(
      `POST /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${termToken}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n${body.slice(0, 10)}`,
    );
    // The server has read the headers (and logged the request) before it is told to stop.
    await waitFor('the request to arrive', () => proc.output().includes('"incoming request"'));
    proc.child.kill('SIGTERM');
    await waitFor('the shutdown to begin', () => proc.output().includes('shutting down'));
    socket.write(body.slice(10));
    expect(await answer).toMatch(/^HTTP\/1\.1 200/);
    expect(await proc.exited).toBe(0);
    expect(proc.output()).toContain('shutting down');
    rmSync(dir, { recursive: true, force: true });
  });

  it('logs JSON lines with the request id, and never a token', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'plant-store-logs-'));
    const proc = await startServerProcess({ DATABASE_URL: `sqlite:${join(dir, 'db.sqlite')}`, ACCESS_LOG: 'true' });
    try {
      await fetch(`${proc.url}/plants?access_token=pst_leaked`, { headers: { 'x-request-id': 'trace-logs-1' } });
      await fetch(`${proc.url}/plants`, {
        headers: { authorization: 'Bearer pst_also_secret', 'x-request-id': 'trace-logs-2' },
      });
      await waitFor(
        'both requests to be logged as completed',
        () => (proc.output().match(/"request completed"/g)?.length ?? 0) >= 2,
      );
      const lines = proc
        .output()
        .trim()
        .split('\n')
        .map(
          (line) =>
            JSON.parse(line) as {
              reqId?: string;
              msg: string;
              req?: { method: string; url: string };
              res?: { statusCode: number };
              responseTime?: number;
            },
        );
      expect(lines.filter((line) => line.reqId === 'trace-logs-1').length).toBeGreaterThanOrEqual(1);
      // At info, a request is one access line, written when it is answered (a refusal adds its reason's line).
      const second = lines.filter((line) => line.reqId === 'trace-logs-2' && line.msg !== 'request refused');
      expect(second).toHaveLength(1);
      expect(second[0]).toMatchObject({
        msg: 'request completed',
        req: { method: 'GET', url: '/plants' },
        res: { statusCode: 401 },
      });
      expect(second[0]!.responseTime).toBeGreaterThan(0);
      expect(proc.output()).not.toContain('pst_leaked');
      expect(proc.output()).not.toContain('pst_also_secret');
    } finally {
      proc.child.kill('SIGTERM');
      await proc.exited;
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('writes no line for an answered request by default (ACCESS_LOG unset), and still the reason of a refusal', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'plant-store-no-access-log-'));
    const databaseUrl = `sqlite:${join(dir, 'db.sqlite')}`;
    const setup = await openStore(databaseUrl);
    await setup.migrate();
    const { token } = await issueToken(setup.tokens, { subject: 'quiet' });
    await setup.close();
    const proc = await startServerProcess({ DATABASE_URL: databaseUrl });
    try {
      const answered = await fetch(`${proc.url}/plants`, {
        headers: { authorization: `Bearer ${token}`, 'x-request-id': 'quiet-answered' },
      });
      expect(answered.status).toBe(200);
      // A refusal's reason is logged at info: once it is out, so is any line of the request before it (one batch, in order).
      const refused = await fetch(`${proc.url}/plants`, { headers: { 'x-request-id': 'quiet-refused' } });
      expect(refused.status).toBe(401);
      await waitFor('the refusal to be logged', () => proc.output().includes('"reqId":"quiet-refused"'));
      const lines = proc
        .output()
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { reqId?: string; msg: string });
      expect(lines.filter((line) => line.reqId === 'quiet-answered')).toEqual([]);
      expect(lines.filter((line) => line.reqId === 'quiet-refused').map((line) => line.msg)).toEqual([
        'request refused',
      ]);
    } finally {
      proc.child.kill('SIGTERM');
      await proc.exited;
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses to start with a clear message for a bad setting', async () => {
    await expect(startServerProcess({ PORT: 'eighty' })).rejects.toThrow('PORT must be a whole number');
  });
});
