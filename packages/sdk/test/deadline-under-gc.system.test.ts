// The deadline and the caller's abort win even after garbage collections, against real sockets that never answer.
// In Node's fetch (undici) the link from a Request's signal to its fetch is weakly held and lost on GC
// (nodejs/undici#4068), which once left calls hanging forever. Each case runs the built SDK in a child process on
// this Node (CI runs this file on every Node line it tests) with --expose-gc and forced collections.
import { execFile } from 'node:child_process';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type Server, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const SDK = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const SCRIPT = fileURLToPath(new URL('./fixtures/deadline-under-gc.mjs', import.meta.url));

const sockets = new Set<Socket>();
let silent: Server;
let busy: ReturnType<typeof createHttpServer>;
const urlOf = (server: Server) => {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('not listening');
  return `http://127.0.0.1:${address.port}`;
};

beforeAll(async () => {
  // Accepts connections and reads requests, but never answers.
  silent = createServer((socket) => {
    sockets.add(socket);
    socket.resume();
  });
  // Always busy, asking to come back much later than any test waits.
  busy = createHttpServer((_request, response) => {
    response.writeHead(503, { 'retry-after': '20', 'content-type': 'application/json' });
    response.end('{"error":503,"message":"busy"}');
  });
  await Promise.all([
    new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve)),
    new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve)),
  ]);
});
afterAll(() => {
  for (const socket of sockets) socket.destroy();
  silent.close();
  busy.close();
});

async function run(url: string, mode: string) {
  const { stdout } = await promisify(execFile)(process.execPath, ['--expose-gc', SCRIPT, SDK, url, mode], {
    timeout: 10_000,
  });
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as { settled: string; name?: string; ms: number };
}

describe('deadlines under garbage collection (real never-answering sockets, --expose-gc)', () => {
  it('rejects with PlantStoreTimeoutError at the client timeout', async () => {
    const outcome = await run(urlOf(silent), 'timeout');
    expect(outcome).toMatchObject({ settled: 'rejected', name: 'PlantStoreTimeoutError' });
    expect(outcome.ms).toBeGreaterThanOrEqual(900);
    expect(outcome.ms).toBeLessThan(3000);
  });

  it("rejects with the caller's reason when the caller aborts", async () => {
    const outcome = await run(urlOf(silent), 'abort');
    expect(outcome).toMatchObject({ settled: 'rejected', name: 'PlantStoreAbortError', message: 'caller aborted' });
    expect(outcome.ms).toBeLessThan(3000);
  });

  it("rejects with the caller's reason when the caller aborts during a retry wait", async () => {
    const outcome = await run(urlOf(busy as unknown as Server), 'abort-in-retry-wait');
    expect(outcome).toMatchObject({ settled: 'rejected', name: 'PlantStoreAbortError', message: 'caller aborted' });
    expect(outcome.ms).toBeLessThan(3000);
  });
});
