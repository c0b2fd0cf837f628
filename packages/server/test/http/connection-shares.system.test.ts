// One address cannot hold every connection slot: with `ulimit -n 256` (192 slots, a share of 48 per address), 200
// silent sockets from 127.0.0.2 are held 48 at most, and authenticated requests from 127.0.0.1 keep being answered;
// what is shed is counted on /metrics and logged. Then, with every slot taken by silent sockets from many addresses,
// a new client still gets in: a silent connection gives its slot up.
import { mkdtempSync, rmSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '@plant-store/test-kit';
import { BIN, type ServerProcess, startServerProcess, tokenIn } from '@plant-store/test-kit/server-process';
import { afterAll, beforeAll, expect, it } from 'vitest';

const LIMIT = 256;
const SLOTS = 192;
const SHARE = 48;

let dir: string;
let server: ServerProcess;
let token: string;
let metricsUrl: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'plant-store-shares-'));
  const databaseUrl = `sqlite:${join(dir, 'plants.db')}`;
  token = await tokenIn(databaseUrl, 'alice');
  server = await startServerProcess(
    { DATABASE_URL: databaseUrl, METRICS_PORT: '0' },
    [],
    // The limit applies to the server alone: the shell sets it, then becomes node.
    { command: ['sh', '-c', `ulimit -n ${LIMIT} && exec "$0" "$@"`, process.execPath, BIN] },
  );
  metricsUrl = /Metrics listening at (http:\/\/127\.0\.0\.1:\d+)\/metrics/.exec(server.output())![1]!;
});
afterAll(async () => {
  if (server?.child.exitCode === null) {
    server.child.kill('SIGKILL');
    await server.exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

/** A socket that connects from `from` and sends nothing. */
function openSilent(from: string): Promise<Socket> {
  const { port } = new URL(server.url);
  return new Promise((resolve) => {
    const socket = connect({ port: Number(port), host: '127.0.0.1', localAddress: from });
    socket.on('error', () => {});
    socket.once('connect', () => resolve(socket));
    socket.once('close', () => resolve(socket));
  });
}

/**
 * An authenticated list on a connection of its own, closed after the answer: a kept-alive connection of fetch's pool
 * would carry the next test's requests without a new slot (or free a slot when it times out), so what the second test
 * sees would depend on timing.
 */
function authenticated(): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = httpGet(
      `${server.url}/plants`,
      { agent: false, headers: { authorization: `Bearer ${token}`, connection: 'close' } },
      (response) => {
        response.resume();
        response.once('end', () => resolve(response.statusCode ?? 0));
      },
    );
    request.once('error', reject);
  });
}

async function shed(reason: string): Promise<number> {
  const text = await (await fetch(`${metricsUrl}/metrics`)).text();
  return Number(new RegExp(`^plant_store_connections_shed_total\\{reason="${reason}"\\} (\\d+)$`, 'm').exec(text)?.[1]);
}

it('holds one address to its share, and keeps answering the others', async () => {
  const silent = await Promise.all(Array.from({ length: 200 }, () => openSilent('127.0.0.2')));
  await waitFor(
    'the connections beyond the share to be closed',
    () => silent.filter((s) => s.destroyed).length >= 152,
    {
      timeoutMs: 10_000,
      everyMs: 50,
    },
  );
  expect(silent.filter((socket) => !socket.destroyed)).toHaveLength(SHARE);

  const statuses = await Promise.all(Array.from({ length: 15 }, authenticated));
  expect(statuses).toEqual(Array(15).fill(200));
  expect(await shed('address_share')).toBe(152);
  await waitFor('the shedding to be logged', () => /"msg":"connections shed/.test(server.output()), {
    timeoutMs: 15_000,
    everyMs: 100,
  });
  const line = JSON.parse(
    server
      .output()
      .split('\n')
      .find((text) => text.includes('"connections shed'))!,
  );
  expect(line).toMatchObject({ level: 40, slots: SLOTS, share: SHARE, busiest: '127.0.0.2', held: SHARE });
  for (const socket of silent) socket.destroy();
}, 60_000);

it('gives a new client the slot of a silent connection when every slot is taken', async () => {
  // Every slot, 48 at a time from four addresses.
  const silent: Socket[] = [];
  for (const from of ['127.0.0.3', '127.0.0.4', '127.0.0.5', '127.0.0.6']) {
    silent.push(...(await Promise.all(Array.from({ length: SHARE }, () => openSilent(from)))));
  }
  // Every slot, or nearly (the test before closed each of its connections; its silent ones may still be closing):
  // fewer free slots than the 15 requests below, so some of them must take a silent connection's.
  expect(silent.filter((socket) => !socket.destroyed).length).toBeGreaterThan(SLOTS - 10);
  const before = await shed('idle');
  const statuses = await Promise.all(Array.from({ length: 15 }, authenticated));
  expect(statuses).toEqual(Array(15).fill(200));
  expect(await shed('idle')).toBeGreaterThan(before);
  for (const socket of silent) socket.destroy();
}, 60_000);
