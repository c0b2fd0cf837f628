// What a serving process holds: V8's young generation sized by `plant-store serve` itself (the same process,
// re-executed with the flag), and only the modules of what is switched on (a SQLite service with metrics off loads
// neither pg, ioredis, jose, prom-client nor OpenTelemetry).
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BIN, type ServerProcess, startServerProcess, stopAll, tokenIn } from '@plant-store/test-kit/server-process';
import { afterAll, describe, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'plant-store-footprint-'));
const processes: ServerProcess[] = [];
afterAll(async () => {
  await stopAll(processes);
  rmSync(dir, { recursive: true, force: true });
});

async function serve(name: string, env: Record<string, string> = {}, command?: string[]) {
  const server = await startServerProcess(
    { DATABASE_URL: `sqlite:${join(dir, `${name}.db`)}`, ...env },
    [],
    command ? { command } : {},
  );
  processes.push(server);
  return server;
}

/** NODE_OPTIONS that preload `source`, written to the test's folder as `<name>.mjs`, into the served process. */
function preloading(name: string, source: string): string {
  const file = join(dir, `${name}.mjs`);
  writeFileSync(file, source);
  return `--import ${pathToFileURL(file).href}`;
}

const commandLine = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');

describe('a serving process', () => {
  it('runs with a bounded young generation, an old-generation ceiling and two malloc arenas, in the very process that was started', async () => {
    const server = await serve('sized');
    expect(commandLine(server.child.pid!)).toContain('--max-semi-space-size=8');
    expect(commandLine(server.child.pid!)).toContain('--max-old-space-size=384');
    expect(readFileSync(`/proc/${server.child.pid!}/environ`, 'utf8').split('\0')).toContain('MALLOC_ARENA_MAX=2');
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });

  it('gives V8 no more worker threads than the cores it may run on (4 at most, as Node would)', async () => {
    const unpinned = await serve('pool');
    expect(commandLine(unpinned.child.pid!)).toContain(`--v8-pool-size=${Math.min(4, availableParallelism())}`);
    // Pinned to one core (taskset execs node in its own place: the pid is the server's).
    const pinned = await serve('pool-pinned', {}, ['taskset', '-c', '0', process.execPath, BIN]);
    expect(commandLine(pinned.child.pid!)).toContain('--v8-pool-size=1');
    expect((await fetch(`${pinned.url}/healthz`)).status).toBe(200);
  });

  it('keeps the sizes NODE_OPTIONS and the environment ask for', async () => {
    const server = await serve('asked', {
      NODE_OPTIONS: '--max-semi-space-size=4 --max-old-space-size=2048 --v8-pool-size=2',
      MALLOC_ARENA_MAX: '4',
    });
    const line = commandLine(server.child.pid!);
    expect(line).not.toContain('--max-semi-space-size=8');
    expect(line).not.toContain('--max-old-space-size=384');
    expect(line.filter((flag) => flag.startsWith('--v8-pool-size'))).toEqual([]);
    expect(readFileSync(`/proc/${server.child.pid!}/environ`, 'utf8').split('\0')).toContain('MALLOC_ARENA_MAX=4');
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });

  it('adds only the size NODE_OPTIONS leaves out', async () => {
    const server = await serve('half', { NODE_OPTIONS: '--max-old-space-size=2048' });
    const line = commandLine(server.child.pid!);
    expect(line).toContain('--max-semi-space-size=8');
    expect(line).not.toContain('--max-old-space-size=384');
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });

  it("starts one worker thread beside the main one at a SQLite store's first write (its log sync and checkpoints share it), none before", async (context) => {
    const url = `sqlite:${join(dir, 'threads.db')}`;
    const token = await tokenIn(url, 'alice');
    const server = await serve('threads');
    // Node 24 on names each worker's OS thread WorkerThread (each a whole Node environment, ~19 MB of RSS) and the
    // main one MainThread (26: node-MainThread); Node 22 calls every thread node, so there they cannot be told apart.
    if (!readFileSync(`/proc/${server.child.pid!}/comm`, 'utf8').trim().endsWith('MainThread')) {
      context.skip('this Node does not name its threads');
    }
    const workerThreads = () =>
      readdirSync(`/proc/${server.child.pid!}/task`)
        .map((task) => readFileSync(`/proc/${server.child.pid!}/task/${task}/comm`, 'utf8').trim())
        .filter((name) => name === 'WorkerThread');
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${server.url}/plants?limit=100`, { headers })).status).toBe(200);
    expect(workerThreads()).toHaveLength(0);
    for (const [id, name] of [
      [1, 'fern'],
      [2, 'moss'],
    ] as const) {
      const body = JSON.stringify({ id, name });
      const created = await fetch(`${server.url}/plants`, { method: 'POST', headers, body });
      expect(created.status).toBe(200);
    }
    expect(workerThreads()).toHaveLength(1);
    const page = await (await fetch(`${server.url}/plants?limit=100`, { headers })).json();
    expect(page.map((plant: { name: string }) => plant.name)).toEqual(['fern', 'moss']);
  });

  it("loads node:http as CommonJS, so Node's bundled undici (fetch, WebSocket) is never loaded, metrics and webhooks on", async () => {
    const listed = join(dir, 'builtins.txt');
    const hook = `import { writeFileSync } from 'node:fs';
process.on('exit', () => writeFileSync(${JSON.stringify(listed)}, process.moduleLoadList.join('\\n')));`;
    const server = await serve('builtins', { NODE_OPTIONS: preloading('builtins', hook), METRICS_PORT: '0' });
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${server.url}/plants`)).status).toBe(401);
    await stopAll([server]);
    const builtins = readFileSync(listed, 'utf8').split('\n');
    // The list is the served process's own: it loaded the HTTP server, and never undici.
    expect(builtins).toContain('NativeModule _http_server');
    expect(builtins.filter((name) => name.includes('undici'))).toEqual([]);
  });

  it('loads no module of a feature that is off', async () => {
    const loaded = join(dir, 'loaded.txt');
    const hook = `import { appendFileSync } from 'node:fs';
import { registerHooks } from 'node:module';
registerHooks({ load(url, context, next) { appendFileSync(${JSON.stringify(loaded)}, url + '\\n'); return next(url, context); } });`;
    const server = await serve('lazy', { NODE_OPTIONS: preloading('hook', hook), METRICS_PORT: 'off' });
    expect((await fetch(`${server.url}/plants`)).status).toBe(401);
    const urls = readFileSync(loaded, 'utf8');
    expect(urls).toContain('better-sqlite3');
    for (const unused of ['/pg@', '/pg-pool@', '/ioredis@', '/jose@', '/prom-client@', '@opentelemetry']) {
      expect(urls, unused).not.toContain(unused);
    }
  });
});
