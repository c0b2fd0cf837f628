// Proves the tarball, not the source: pack the package with pnpm, install it with npm alone into an empty folder
// outside the workspace (no workspace package among its dependencies: the contract is bundled), and run its command
// with npx, for --help and for a real run against a started service.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { startTestServer, type TestServer } from '@plant-store/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const packageDir = new URL('../..', import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), 'plant-store-conformance-tarball-'));
const project = join(work, 'ci-job');
// npx and the command run on this Node (22 or newer), as a CI image's would.
const env = { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH}` };
let tarball: string;
let server: TestServer;

async function npx(args: string[]): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run('npx', ['--no-install', 'plant-store-conformance', ...args], {
      cwd: project,
      env,
    });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, output: failed.stdout + failed.stderr };
  }
}

beforeAll(async () => {
  await run('npx', ['-y', 'pnpm@10.34.9', 'pack', '--pack-destination', work], { cwd: packageDir });
  tarball = join(work, readdirSync(work).find((name) => name.endsWith('.tgz'))!);
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'ci-job', private: true }));
  const started = Date.now();
  await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball], { cwd: project, env });
  console.log(`conformance tarball: installed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  server = await startTestServer({ env: { RATE_LIMIT_MAX: '0' } });
}, 240_000);

afterAll(async () => {
  await server?.close();
  rmSync(work, { recursive: true, force: true });
});

describe('the packed conformance checker', () => {
  it('ships the bin, the bundle and the contract, and depends on no workspace package', async () => {
    const { stdout } = await run('tar', ['-tzf', tarball]);
    const files = stdout.trim().split('\n');
    expect(files).toContain('package/bin/plant-store-conformance.js');
    expect(files).toContain('package/dist/cli.js');
    expect(files).toContain('package/dist/openapi.yaml');
    expect(files.filter((file) => file.includes('/src/') || file.includes('/test/'))).toEqual([]);
    const installed = join(project, 'node_modules/@plant-store/conformance');
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'));
    expect(Object.keys(manifest.dependencies).sort()).toEqual(['ajv', 'ajv-formats', 'fast-check', 'yaml']);
    expect(manifest.engines).toEqual({ node: '>=22' });
    for (const name of readdirSync(join(installed, 'dist')).filter((file) => file.endsWith('.js'))) {
      expect(readFileSync(join(installed, 'dist', name), 'utf8')).not.toMatch(/from ["']@plant-store\//);
    }
    expect(readdirSync(join(project, 'node_modules/@plant-store'))).toEqual(['conformance']);
  });

  it('prints its usage with --help and exits 0', async () => {
    const help = await npx(['--help']);
    expect(help.code, help.output).toBe(0);
    expect(help.output).toContain('--base-url URL');
  });

  it('checks a started service and exits 0, leaving nothing behind', async () => {
    const token = await server.token('tarball-run');
    const result = await npx(['--base-url', server.url, '--token', token, '--requests', '30']);
    expect(result.code, result.output).toBe(0);
    expect(result.output).toContain('PASSED');
    const left = await fetch(`${server.url}/plants`, { headers: { authorization: `Bearer ${token}` } });
    expect(await left.json()).toEqual([]);
  }, 120_000);

  it('exits 2 on a usage error', async () => {
    const result = await npx(['--token', 'x']);
    expect(result).toMatchObject({ code: 2, output: expect.stringContaining('--base-url URL is required') });
  });
});
