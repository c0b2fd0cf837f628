// `plant-store conformance` as CI runs it: the real command (no configuration, no database: only a URL and tokens),
// its exit codes, its JUnit file, Ctrl-C cleaning up, --read-only writing nothing, and Retry-After honoured.
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startTestServer, type TestServer, waitFor } from '@plant-store/test-kit';
import { rateLimitsNow, startProxy } from '@plant-store/test-kit/broken-deployments';
import { collectOutput } from '@plant-store/test-kit/child-output';
import { conformance, conformanceArgs, runConformance, tally } from '@plant-store/test-kit/conformance-run';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
// The server's `plant-store` command, whose `conformance` is this package's.
const BIN = fileURLToPath(new URL('../../server/bin/plant-store.js', import.meta.url));
let t: TestServer;
let work: string;
// A CI job's environment: no database, and configuration the service itself would refuse to start with.
const ciEnv = { PATH: process.env.PATH, DATABASE_URL: 'nonsense://', PORT: 'not-a-port', RATE_LIMIT_MAX: '-1' };

beforeAll(async () => {
  t = await startTestServer({ env: { RATE_LIMIT_MAX: '0', RATE_LIMIT_ANONYMOUS_MAX: '0' } });
  work = mkdtempSync(join(tmpdir(), 'plant-store-conformance-'));
});
afterAll(async () => {
  await t.close();
  rmSync(work, { recursive: true, force: true });
});

async function command(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, 'conformance', ...args], { env: ciEnv });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

const plantsOf = async (subject: string) =>
  JSON.parse(new TextDecoder().decode((await t.store.plants.list(subject, { limit: 1000 })).body)) as unknown[];

describe('plant-store conformance on the command line', () => {
  it('exits 2 on a usage error, naming it, and 0 on --help', async () => {
    // The process's exit code once; the entry function's codes for the rest.
    const missing = await command(['--token', 'x']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--base-url URL is required');
    const both = await conformance(['--base-url', t.url, '--token', 'x', '--requests', '5', '--duration', '5']);
    expect(both).toMatchObject({ code: 2, output: expect.stringContaining('give --requests or --duration, not both') });
    const unknown = await conformance(['--base-url', t.url, '--token', 'x', '--requets', '5']);
    expect(unknown).toMatchObject({
      code: 2,
      output: expect.stringContaining("Unknown option '--requets'; did you mean --requests?"),
    });
    const scheme = await conformance(['--base-url', 'ftp://example.com', '--token', 'x']);
    expect(scheme).toMatchObject({
      code: 2,
      output: expect.stringContaining('--base-url must be http:// or https://'),
    });
    const serverHelp = await run(process.execPath, [BIN, '--help'], { env: ciEnv });
    expect(serverHelp.stdout + serverHelp.stderr).toContain('conformance --base-url URL --token T [...]');
    const help = await conformance(['--help']);
    expect(help).toMatchObject({
      code: 0,
      output: expect.stringContaining('Usage: plant-store conformance --base-url URL'),
    });
  }, 60_000);

  it('exits 2 at the start, before any request, when the --junit file cannot be written', async () => {
    const proxy = await startProxy(t.url);
    try {
      for (const [junit, why] of [
        [join(work, 'no-such-folder', 'conformance.xml'), 'there is no folder'],
        [work, 'it is a folder'],
      ]) {
        const result = await command(['--base-url', proxy.url, '--token', 'x', '--junit', junit!]);
        expect(result.code, result.stdout + result.stderr).toBe(2);
        expect(result.stderr).toContain(`--junit "${junit}" cannot be written: ${why}`);
      }
      expect(proxy.seen).toEqual([]);
    } finally {
      await proxy.close();
    }
  }, 60_000);

  it('exits 2 when the service refuses the token, before writing anything', async () => {
    const refused = await conformance(['--base-url', t.url, '--token', 'pst_not-a-token-of-this-service']);
    expect(refused.code, refused.output).toBe(2);
    expect(refused.output).toContain('answered 401 to --token');
  }, 60_000);

  it('runs with only a URL and a token, exits 0 and writes the JUnit file', async () => {
    const token = await t.token('conformance-junit');
    const junit = join(work, 'conformance.xml');
    const result = await command(['--base-url', t.url, '--token', token, '--requests', '10', '--junit', junit]);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const xml = readFileSync(junit, 'utf8');
    expect(xml).toMatch(
      /^<\?xml version="1.0" encoding="UTF-8"\?>\n<testsuites name="plant-store conformance" tests="\d+" failures="0"/,
    );
    expect(xml).toContain('<testsuite name="createPlant"');
    expect(xml).toContain('<testcase classname="getPlants" name="model-listing"/>');
    expect(await plantsOf('conformance-junit')).toEqual([]);
  }, 120_000);

  it('deletes what it created when interrupted with SIGINT, and exits 1', async () => {
    const [first, second] = await Promise.all([t.token('conformance-sigint-a'), t.token('conformance-sigint-b')]);
    const child = spawn(
      process.execPath,
      [
        BIN,
        'conformance',
        ...conformanceArgs({ baseUrl: t.url, tokens: [first, second], args: ['--requests', '100000'] }),
      ],
      { env: ciEnv, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const { output, exited } = collectOutput(child);
    // Interrupted once it has created plants for both principals.
    await waitFor(
      'plants of both principals',
      async () =>
        (await plantsOf('conformance-sigint-a')).length > 2 && (await plantsOf('conformance-sigint-b')).length > 0,
      { timeoutMs: 60_000, everyMs: 50 },
    );
    child.kill('SIGINT');
    expect(await exited, output()).toBe(1);
    expect(output()).toContain('interrupted; deleting what the run created');
    expect(output()).toContain('INTERRUPTED: the run did not finish.');
    expect(await plantsOf('conformance-sigint-a')).toEqual([]);
    expect(await plantsOf('conformance-sigint-b')).toEqual([]);
  }, 120_000);

  it('sends only GET and HEAD with --read-only', async () => {
    const proxy = await startProxy(t.url);
    try {
      const [first, second] = await Promise.all([t.token('conformance-ro-a'), t.token('conformance-ro-b')]);
      const result = await runConformance({
        baseUrl: proxy.url,
        tokens: [first, second],
        args: ['--read-only', '--requests', '60'],
      });
      expect(result.code, result.output).toBe(0);
      const methods = new Set(proxy.seen.map((request) => request.method));
      expect(proxy.seen.length).toBeGreaterThan(60);
      expect([...methods].sort()).toEqual(['GET', 'HEAD']);
    } finally {
      await proxy.close();
    }
  }, 120_000);

  it('honours Retry-After: a 429 is waited on and sent again, not a failure', async () => {
    const limiter = rateLimitsNow(15, 2);
    const proxy = await startProxy(t.url, limiter);
    try {
      const token = await t.token('conformance-retry');
      const started = Date.now();
      const result = await conformance(['--base-url', proxy.url, '--token', token, '--requests', '20']);
      expect(result.code, result.output).toBe(0);
      expect(limiter.limited()).toBe(2);
      expect(result.output).toContain('2 answers waited on for Retry-After');
      expect(Date.now() - started).toBeGreaterThanOrEqual(2000);
      // The 429 answers themselves were checked: Retry-After present, Error body.
      const retryAfter = ['getPlants', 'createPlant', 'deletePlant'].reduce(
        (sum, operationId) => sum + (tally(result.output, operationId, 'retry-after')?.passed ?? 0),
        0,
      );
      expect(retryAfter).toBe(2);
    } finally {
      await proxy.close();
    }
  }, 120_000);
});
