// Running out of file descriptors: with `ulimit -n 200` and 300 idle connections opened against the API, the process
// stays up, connections beyond the bound (200 less a reserve of 64, see connection-bound.ts) are shed, a keep-alive
// connection opened before keeps answering /healthz, the metrics listener still accepts a new connection from the
// reserve, and once the idle connections are gone a new connection gets /healthz again.
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '@plant-store/test-kit';
import { openRaw } from '@plant-store/test-kit/raw-socket';
import { BIN, type ServerProcess, startServerProcess } from '@plant-store/test-kit/server-process';
import { afterAll, beforeAll, expect, it } from 'vitest';

const LIMIT = 200;
const IDLE = 300;

let dir: string;
let server: ServerProcess;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'plant-store-descriptors-'));
  server = await startServerProcess(
    { DATABASE_URL: `sqlite:${join(dir, 'plants.db')}`, METRICS_PORT: '0', KEEP_ALIVE_TIMEOUT_MS: '60000' },
    [],
    // The limit applies to the server alone: the shell sets it, then becomes node.
    { command: ['sh', '-c', `ulimit -n ${LIMIT} && exec "$0" "$@"`, process.execPath, BIN] },
  );
});
afterAll(async () => {
  if (server?.child.exitCode === null) {
    server.child.kill('SIGKILL');
    await server.exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

function openIdle(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    socket.on('error', () => {});
    socket.once('connect', () => resolve(socket));
    socket.once('close', () => resolve(socket));
  });
}

const healthz = 'GET /healthz HTTP/1.1\r\nHost: plant-store\r\n\r\n';

it('sheds connections beyond the bound, survives, and keeps /healthz and the metrics listener answering', async () => {
  const metricsUrl = /Metrics listening at (http:\/\/127\.0\.0\.1:\d+)\/metrics/.exec(server.output())?.[1];
  expect(metricsUrl).toBeDefined();
  const spare = await openRaw(server.url);
  spare.socket.write(healthz);
  await spare.waitFor(/"status":"ok"/);

  const idle = await Promise.all(Array.from({ length: IDLE }, () => openIdle(server.url)));
  // The server closes what it cannot hold at once; what it holds stays open.
  await waitFor('the connections beyond the bound to be shed', () => idle.some((socket) => socket.destroyed), {
    timeoutMs: 10_000,
    everyMs: 50,
  });
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  expect(server.child.exitCode).toBeNull();
  expect(idle.filter((socket) => !socket.destroyed).length).toBeLessThan(LIMIT);

  // The connection opened before the flood still answers.
  spare.socket.write(healthz);
  await spare.waitFor(/"status":"ok"[\s\S]*"status":"ok"/);
  // The metrics listener gets a descriptor from the reserve.
  const scrape = await fetch(`${metricsUrl}/metrics`);
  expect(scrape.status).toBe(200);

  for (const socket of idle) socket.destroy();
  await waitFor(
    'a new connection to get /healthz',
    async () => (await fetch(`${server.url}/healthz`).catch(() => undefined))?.status === 200,
    { timeoutMs: 10_000, everyMs: 100 },
  );
  expect(server.child.exitCode).toBeNull();
  expect(server.output()).not.toMatch(/EMFILE/);
  spare.socket.destroy();
}, 60_000);
