// The metrics listener of `plant-store serve`: its own address (never the API's port), exact counts after a known
// sequence of requests, `serve --workers 2` summing every worker into one scrape, METRICS_PORT=off, and an address
// that cannot be bound stopping start-up.

import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { connect, createServer } from 'node:net';
import { promisify } from 'node:util';
import { createTestDatabase, type TestDatabase, waitFor } from '@plant-store/test-kit';
import { samplesWith, sampleValue } from '@plant-store/test-kit/prometheus-samples';
import { BIN, type ServerProcess, startServerProcess, stopAll, tokenIn } from '@plant-store/test-kit/server-process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let database: TestDatabase;
const processes: ServerProcess[] = [];

beforeAll(() => {
  database = createTestDatabase('sqlite');
});
afterAll(async () => {
  await stopAll(processes);
  await database.drop();
});

const tokenFor = (subject: string) => tokenIn(database.url, subject);

async function start(
  args: string[] = [],
  env: Record<string, string> = {},
): Promise<{ server: ServerProcess; metricsUrl: string }> {
  const server = await startServerProcess({ DATABASE_URL: database.url, METRICS_PORT: '0', ...env }, args);
  processes.push(server);
  let metricsUrl = '';
  await waitFor('the metrics listener', () => {
    metricsUrl = /Metrics listening at (http:\/\/127\.0\.0\.1:\d+\/metrics)/.exec(server.output())?.[1] ?? '';
    return metricsUrl !== '';
  });
  return { server, metricsUrl };
}

/** One request on a connection of its own (so `--workers` spreads them), resolving to the status. */
function send(url: string, method: string, token?: string, body?: unknown): Promise<number> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      url,
      {
        method,
        agent: false,
        headers: {
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          ...(payload ? { 'content-type': 'application/json' } : {}),
        },
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      },
    );
    outgoing.on('error', reject);
    outgoing.end(payload);
  });
}

async function scrape(metricsUrl: string): Promise<string> {
  const response = await fetch(metricsUrl);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('text/plain');
  return response.text();
}

/** Scrapes until `requests` answers are recorded: the last may reach the client just before its onResponse hook. */
async function scrapeAll(metricsUrl: string, requests: number): Promise<string> {
  let text = '';
  await waitFor(`all ${requests} requests in the scrape`, async () => {
    text = await scrape(metricsUrl);
    return total(text) === requests;
  });
  return text;
}

const total = (text: string) =>
  samplesWith(text, 'http_server_request_duration_seconds_count').reduce((n, sample) => n + sample.value, 0);
const count = (text: string, method: string, route: string, status: number, operationId: string) =>
  sampleValue(text, 'http_server_request_duration_seconds_count', {
    http_request_method: method,
    http_route: route,
    http_response_status_code: String(status),
    operation_id: operationId,
  });

/** The known sequence: 4 creates (one a conflict), 3 lists, 2 deletes (one unknown), 2 without a token: 11. */
async function knownSequence(apiUrl: string, token: string): Promise<void> {
  const statuses: number[] = [];
  for (const id of [1, 2, 3, 1]) statuses.push(await send(`${apiUrl}/plants`, 'POST', token, { id, name: `p${id}` }));
  for (let i = 0; i < 3; i++) statuses.push(await send(`${apiUrl}/plants`, 'GET', token));
  statuses.push(await send(`${apiUrl}/plants/2`, 'DELETE', token), await send(`${apiUrl}/plants/42`, 'DELETE', token));
  statuses.push(await send(`${apiUrl}/plants`, 'GET'), await send(`${apiUrl}/plants`, 'GET'));
  expect(statuses).toEqual([200, 200, 200, 409, 200, 200, 200, 204, 404, 401, 401]);
}

function expectKnownCounts(text: string): void {
  expect(total(text)).toBe(11);
  expect(count(text, 'POST', '/plants', 200, 'createPlant')).toBe(3);
  expect(count(text, 'POST', '/plants', 409, 'createPlant')).toBe(1);
  expect(count(text, 'GET', '/plants', 200, 'getPlants')).toBe(3);
  expect(count(text, 'GET', '/plants', 401, 'getPlants')).toBe(2);
  expect(count(text, 'DELETE', '/plants/:id', 204, 'deletePlant')).toBe(1);
  expect(count(text, 'DELETE', '/plants/:id', 404, 'deletePlant')).toBe(1);
  expect(
    sampleValue(text, 'plant_store_store_operation_duration_seconds_count', {
      engine: 'sqlite',
      operation: 'plants.create',
    }),
  ).toBe(4);
  expect(sampleValue(text, 'http_server_active_requests')).toBe(0);
}

describe('serve with metrics on', () => {
  it('answers exact counts on its own listener, and nothing on the API port', async () => {
    const { server, metricsUrl } = await start();
    const token = await tokenFor(`metrics-${randomBytes(4).toString('hex')}`);
    await knownSequence(server.url, token);
    const text = await scrapeAll(metricsUrl, 11);
    expectKnownCounts(text);
    expect(sampleValue(text, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(await send(`${server.url}/metrics`, 'GET', token)).toBe(404);
    expect(await send(metricsUrl.replace('/metrics', '/other'), 'GET')).toBe(404);
    expect(await send(metricsUrl, 'POST')).toBe(405);
  });
});

describe('requests in flight', () => {
  it('counts a request from its head until its answer, and a connection that goes away mid-request no longer', async () => {
    const { server, metricsUrl } = await start();
    const token = await tokenFor(`in-flight-${randomBytes(4).toString('hex')}`);
    const { hostname, port } = new URL(server.url);
    const body = JSON.stringify({ id: 7, name: 'held' });
    // Heads sent, bodies not yet: each request is being answered (its handler waits for the body) until it ends.
    const head = (id: number) =>
      `POST /plants HTTP/1.1\r\nhost: ${hostname}\r\nauthorization: Bearer ${token}\r\n` +
      `content-type: application/json\r\ncontent-length: ${body.length}\r\nx-request-id: in-flight-${id}\r\n\r\n`;
    const open = () =>
      new Promise<ReturnType<typeof connect>>((resolve, reject) => {
        const socket = connect(Number(port), hostname, () => resolve(socket));
        socket.on('error', reject);
      });
    const [first, second] = await Promise.all([open(), open()]);
    first.write(head(1));
    second.write(head(2));
    const active = async () => sampleValue(await scrape(metricsUrl), 'http_server_active_requests');
    await waitFor('two requests in flight', async () => (await active()) === 2);
    const answer = new Promise<string>((resolve) => {
      let text = '';
      first.on('data', (chunk) => {
        text += chunk;
        if (text.includes('\r\n\r\n')) resolve(text);
      });
    });
    first.write(body);
    expect(await answer).toMatch(/^HTTP\/1\.1 200 /);
    await waitFor('one request in flight', async () => (await active()) === 1);
    second.destroy();
    await waitFor('no request in flight', async () => (await active()) === 0);
    first.destroy();
  });
});

describe('serve --workers 2 with metrics on', () => {
  it('sums every worker into one scrape of the primary', async () => {
    // The access log says which worker answered each request.
    const { server, metricsUrl } = await start(['--workers', '2'], { ACCESS_LOG: 'true' });
    const listening = () =>
      new Set([...server.output().matchAll(/"pid":(\d+)[^\n]*Server listening/g)].map((m) => m[1]));
    await waitFor('both workers to listen', () => listening().size >= 2);
    const token = await tokenFor(`workers-metrics-${randomBytes(4).toString('hex')}`);
    await knownSequence(server.url, token);
    const text = await scrapeAll(metricsUrl, 11);
    expectKnownCounts(text);
    // Both workers answered some of them (each request came on a new connection), so the sum is a real aggregate.
    const answering = new Set(
      [...server.output().matchAll(/"pid":(\d+)[^\n]*"msg":"request completed"/g)].map((m) => m[1]),
    );
    expect(answering.size).toBe(2);
  });
});

describe('metrics configuration', () => {
  it('METRICS_PORT=off opens no listener', async () => {
    const server = await startServerProcess({ DATABASE_URL: database.url, METRICS_PORT: 'off' });
    processes.push(server);
    expect(server.output()).not.toContain('Metrics listening');
  });

  it('an address that cannot be bound stops start-up, naming it', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as { port: number };
    const failed = await promisify(execFile)(process.execPath, [BIN, 'serve'], {
      env: { ...process.env, DATABASE_URL: database.url, PORT: '0', METRICS_PORT: String(port), LOG_LEVEL: 'warn' },
      timeout: 20_000,
    }).catch((error: { code: number; stderr: string }) => error);
    taken.close();
    expect(failed).toMatchObject({ code: 1, stderr: expect.stringContaining(`EADDRINUSE`) });
    expect((failed as { stderr: string }).stderr).toContain(String(port));
  });
});
