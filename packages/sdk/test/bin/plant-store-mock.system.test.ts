// The plant-store-mock bin as built (dist/plant-store-mock.js), on a spare port, with the SDK against it: creates with
// exact int64 ids, lists paged by Link, 304s, the Error shapes, a seed file, a fixed token, CORS for a dev server,
// usage errors, and the process ending on SIGTERM and SIGINT.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { collectOutput } from '@plant-store/test-kit/child-output';
import { sparePort } from '@plant-store/test-kit/spare-port';
import { waitFor } from '@plant-store/test-kit/wait';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  BadRequestError,
  ConflictError,
  createPlantStoreClient,
  NotFoundError,
} from '../../src/index.js';

const BIN = new URL('../../dist/plant-store-mock.js', import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), 'plant-store-mock-'));
const started = new Set<ChildProcess>();

interface Mock {
  url: string;
  token: string;
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
}

/** Starts the bin with `args` on a spare port and waits for its "listening" line. */
async function startMock(args: string[] = []): Promise<Mock> {
  const port = await sparePort();
  const child = spawn(process.execPath, [BIN, '--port', String(port), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  started.add(child);
  const { output, exited } = collectOutput(child);
  let ended = false;
  void exited.then(() => {
    ended = true;
  });
  await waitFor('the mock to listen', () => ended || /token \S+\n/.test(output()));
  const url = /listening on (\S+)/.exec(output())?.[1];
  const token = /token (\S+)\n/.exec(output())?.[1];
  if (!url || !token) throw new Error(`the mock did not start: ${output()}`);
  expect(url).toBe(`http://127.0.0.1:${port}`);
  return { url, token, child, output, exited };
}

/** Runs the bin to its end (for usage errors), with its output and exit code. */
async function runMock(args: string[]): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  started.add(child);
  const { output, exited } = collectOutput(child);
  const code = await exited;
  return { code, output: output() };
}

afterEach(() => {
  for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  started.clear();
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('plant-store-mock', () => {
  it('serves the contract to the SDK: exact int64 ids, paging by Link, 304, and the Error shapes', async () => {
    const mock = await startMock(['--token', 'dev-token']);
    expect(mock.token).toBe('dev-token');
    const client = createPlantStoreClient({ baseUrl: mock.url, token: mock.token });
    expect(await client.plants.create({ id: 9007199254740993n, name: 'Cactus' })).toEqual({ name: 'Cactus' });
    for (const id of [1, 2, 3]) await client.plants.create({ id, name: `plant ${id}` });

    const names: string[] = [];
    for await (const plant of client.plants.listAll({ pageSize: 2 })) names.push(plant.name);
    expect(names).toEqual(['plant 1', 'plant 2', 'plant 3', 'Cactus']);
    const first = await fetch(`${mock.url}/plants?limit=2`, { headers: { authorization: 'Bearer dev-token' } });
    expect(first.headers.get('link')).toMatch(/^<\/plants\?limit=2&cursor=[^>]+>; rel="next"$/);
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^W\//);
    const again = await fetch(`${mock.url}/plants?limit=2`, {
      headers: { authorization: 'Bearer dev-token', 'if-none-match': etag! },
    });
    expect(again.status).toBe(304);

    const taken = await client.plants.create({ id: 1, name: 'again' }).catch((error: unknown) => error);
    expect(taken).toBeInstanceOf(ConflictError);
    expect((taken as ConflictError).body).toEqual({ error: 409, message: expect.any(String) });
    await expect(client.plants.create({ id: 4, name: '' })).rejects.toBeInstanceOf(BadRequestError);
    await client.plants.delete(9007199254740993n);
    await expect(client.plants.delete(9007199254740993n)).rejects.toBeInstanceOf(NotFoundError);
    // 9007199254740992 would be the rounded id: it was never created, so the delete above hit the exact one.
    await expect(client.plants.delete(9007199254740992n)).rejects.toBeInstanceOf(NotFoundError);
    const wrong = createPlantStoreClient({ baseUrl: mock.url, token: 'not-the-token' });
    await expect(wrong.plants.list()).rejects.toBeInstanceOf(AuthenticationError);
    // HEAD is GET without the body.
    const head = await fetch(`${mock.url}/plants`, { method: 'HEAD', headers: { authorization: 'Bearer dev-token' } });
    expect([head.status, await head.text(), head.headers.get('etag')]).toEqual([
      200,
      '',
      expect.stringMatching(/^W\//),
    ]);
  });

  it('starts with the plants of a seed file, ids exact, and prints a random token when given none', async () => {
    const seed = join(work, 'seed.json');
    writeFileSync(seed, '[{"id": 9223372036854775807, "name": "Last", "tag": "edge"}, {"id": 5, "name": "Fern"}]');
    const mock = await startMock(['--seed', seed]);
    expect(mock.token).toMatch(/^fake_[0-9a-f]{32}$/);
    const client = createPlantStoreClient({ baseUrl: mock.url, token: mock.token });
    expect(await client.plants.list()).toEqual([{ name: 'Fern' }, { name: 'Last', tag: 'edge' }]);
    await client.plants.delete(9223372036854775807n);
    expect(await client.plants.list()).toEqual([{ name: 'Fern' }]);
  });

  it('answers a preflight and grants CORS to a loopback dev server, and to --cors-origin, not to others', async () => {
    const mock = await startMock(['--cors-origin', 'https://app.example.com']);
    for (const origin of ['http://localhost:5173', 'http://127.0.0.1:3000', 'https://app.example.com']) {
      const preflight = await fetch(`${mock.url}/plants`, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization,content-type,idempotency-key',
        },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get('access-control-allow-origin')).toBe(origin);
      expect(preflight.headers.get('access-control-allow-methods')).toBe('GET, POST, DELETE');
      expect(preflight.headers.get('access-control-allow-headers')).toContain('Idempotency-Key');
      const listed = await fetch(`${mock.url}/plants`, { headers: { origin, authorization: `Bearer ${mock.token}` } });
      expect(listed.headers.get('access-control-allow-origin')).toBe(origin);
      expect(listed.headers.get('access-control-expose-headers')).toContain('Link');
    }
    const stranger = await fetch(`${mock.url}/plants`, {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    });
    expect(stranger.headers.get('access-control-allow-origin')).toBeNull();
    expect(stranger.status).toBe(405);
  });

  it.each(['SIGTERM', 'SIGINT'] as const)(
    'ends on %s with code 0, an idle keep-alive connection open',
    async (signal) => {
      const mock = await startMock();
      // A keep-alive connection left open must not hold the process.
      await fetch(`${mock.url}/plants`, { headers: { authorization: `Bearer ${mock.token}` } });
      mock.child.kill(signal);
      expect(await mock.exited).toBe(0);
    },
  );

  it('refuses bad usage with exit code 2, saying what is wrong', async () => {
    const unknown = await runMock(['--colour', 'green']);
    expect(unknown.code).toBe(2);
    expect(unknown.output).toMatch(/Unknown option '--colour'[\s\S]*usage: plant-store-mock/);
    const port = await runMock(['--port', 'ten']);
    expect([port.code, port.output]).toEqual([2, expect.stringContaining('--port must be a port number, got ten')]);
    const badSeed = join(work, 'bad-seed.json');
    writeFileSync(badSeed, '[{"id": 1, "name": ""}]');
    const seed = await runMock(['--seed', badSeed]);
    expect([seed.code, seed.output]).toEqual([2, expect.stringContaining('the seed file: ')]);
    const token = await runMock(['--token', 'two words']);
    expect([token.code, token.output]).toEqual([2, expect.stringContaining('is not a bearer token')]);
  });
});
