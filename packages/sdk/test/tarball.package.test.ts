// Proves the tarball, not the source: pack the SDK with pnpm, install it with npm into an empty project outside the
// workspace, import it from ESM and CommonJS against the real server, type-check a TypeScript program against it,
// run its plant-store-mock bin, and run publint and attw on what would be published.
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startTestServer, type TestServer } from '@plant-store/test-kit';
import { collectOutput } from '@plant-store/test-kit/child-output';
import { userPath } from '@plant-store/test-kit/user-path';
import { waitFor } from '@plant-store/test-kit/wait';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const sdkDir = new URL('..', import.meta.url).pathname;
const bin = (name: string) => join(sdkDir, 'node_modules/.bin', name);
const tsc = new URL('../../../node_modules/.bin/tsc', import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), 'plant-store-sdk-tarball-'));
const project = join(work, 'consumer');
let tarball: string;
let server: TestServer;

beforeAll(async () => {
  await run('npx', ['-y', 'pnpm@10.34.9', 'pack', '--pack-destination', work], { cwd: sdkDir });
  tarball = join(work, readdirSync(work).find((name) => name.endsWith('.tgz'))!);
  await run('mkdir', ['-p', project]);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  // @tanstack/query-core is the TanStack helpers' optional peer: an app using them has it (their types need it).
  const queryCore = JSON.parse(readFileSync(join(sdkDir, 'node_modules/@tanstack/query-core/package.json'), 'utf8'));
  await run(
    'npm',
    ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball, `@tanstack/query-core@${queryCore.version}`],
    { cwd: project },
  );
  server = await startTestServer({ env: { RATE_LIMIT_MAX: '0' } });
}, 240_000);

afterAll(async () => {
  await server?.close();
  rmSync(work, { recursive: true, force: true });
});

describe('the packed SDK', () => {
  it('ships only dist, README, CHANGELOG and package.json, with types that name no private package', async () => {
    const { stdout } = await run('tar', ['-tzf', tarball]);
    const files = stdout.trim().split('\n').sort();
    expect(files).toContain('package/dist/index.js');
    expect(files).toContain('package/dist/index.cjs');
    expect(files).toContain('package/dist/index.d.ts');
    expect(files).toContain('package/dist/index.d.cts');
    for (const entry of ['testing', 'tanstack']) {
      for (const suffix of ['js', 'cjs', 'd.ts', 'd.cts']) expect(files).toContain(`package/dist/${entry}.${suffix}`);
    }
    // The mock bin is ESM for Node alone: no CommonJS copy nobody can run.
    expect(files).toContain('package/dist/plant-store-mock.js');
    expect(files.filter((file) => file.includes('plant-store-mock.cjs'))).toEqual([]);
    expect(files).toContain('package/README.md');
    expect(files).toContain('package/CHANGELOG.md');
    expect(files.filter((file) => file.includes('/src/') || file.includes('/test/'))).toEqual([]);
    const installed = join(project, 'node_modules/@plant-store/sdk');
    for (const types of readdirSync(join(installed, 'dist')).filter((name) => /\.d\.c?ts$/.test(name))) {
      expect(readFileSync(join(installed, 'dist', types), 'utf8')).not.toContain('@plant-store/');
    }
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'));
    // A caret range, so that an app that also uses openapi-fetch gets one copy of it.
    expect(manifest.dependencies).toEqual({ 'openapi-fetch': expect.stringMatching(/^\^\d/) });
    expect(manifest.peerDependencies).toEqual({ '@tanstack/query-core': expect.stringMatching(/^\^5\./) });
    expect(manifest.peerDependenciesMeta).toEqual({ '@tanstack/query-core': { optional: true } });
    expect(manifest.sideEffects).toBe(false);
  });

  it('works from ESM against the real server', async () => {
    const token = await server.token('tarball-esm');
    writeFileSync(
      join(project, 'esm.mjs'),
      `import { createPlantStoreClient, NotFoundError } from '@plant-store/sdk';
const api = createPlantStoreClient({ baseUrl: process.argv[2], token: process.argv[3] });
await api.plants.create({ id: 9223372036854775807n, name: 'from esm' });
const listed = await api.plants.list();
const missing = await api.plants.delete(5).catch((error) => error instanceof NotFoundError);
console.log(JSON.stringify({ listed, missing }));`,
    );
    const { stdout } = await run(process.execPath, ['esm.mjs', server.url, token], { cwd: project });
    expect(JSON.parse(stdout)).toEqual({ listed: [{ name: 'from esm' }], missing: true });
  });

  it('serves the testing kit and the TanStack helpers from their subpaths, in ESM and CommonJS', async () => {
    writeFileSync(
      join(project, 'kit.mjs'),
      `import { createPlantStoreClient } from '@plant-store/sdk';
import { createFakePlantStore } from '@plant-store/sdk/testing';
import { createPlantStoreQueries, hashPlantStoreKey } from '@plant-store/sdk/tanstack';
const fake = createFakePlantStore();
const api = createPlantStoreClient({ baseUrl: 'http://plant-store.test', token: fake.createToken({ subject: 'a' }), fetch: fake.fetch });
await api.plants.create({ id: 9223372036854775807n, name: 'from the kit' });
const queries = createPlantStoreQueries(api);
console.log(JSON.stringify({ listed: await api.plants.list(), hash: hashPlantStoreKey([1n]), key: queries.keys.lists() }));`,
    );
    const { stdout } = await run(process.execPath, ['kit.mjs'], { cwd: project });
    expect(JSON.parse(stdout)).toEqual({
      listed: [{ name: 'from the kit' }],
      hash: '[{"$bigint":"1"}]',
      key: ['plant-store', 'default', 'plants'],
    });
    writeFileSync(
      join(project, 'kit.cjs'),
      `const { createFakePlantStore } = require('@plant-store/sdk/testing');
const { createPlantStoreQueries } = require('@plant-store/sdk/tanstack');
console.log(JSON.stringify([typeof createFakePlantStore().fetch, typeof createPlantStoreQueries]));`,
    );
    const cjs = await run(process.execPath, ['kit.cjs'], { cwd: project });
    expect(JSON.parse(cjs.stdout)).toEqual(['function', 'function']);
  });

  it('ships the plant-store-mock bin, which serves the contract from the installed package', async () => {
    const { stdout } = await run('tar', ['-tzf', tarball]);
    expect(stdout.split('\n')).toContain('package/dist/plant-store-mock.js');
    const installed = JSON.parse(readFileSync(join(project, 'node_modules/@plant-store/sdk/package.json'), 'utf8'));
    expect(installed.bin).toEqual({ 'plant-store-mock': './dist/plant-store-mock.js' });
    const help = await run('npx', ['--no-install', 'plant-store-mock', '--help'], { cwd: project });
    expect(help.stdout).toMatch(/^usage: plant-store-mock \[--port 4010\]/);
    // Started as a frontend team would, on a free port, then asked through the SDK and ended by SIGTERM.
    const child = spawn(join(project, 'node_modules/.bin/plant-store-mock'), ['--port', '0', '--token', 'kit-token'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, PATH: userPath() },
    });
    const { output } = collectOutput(child);
    const ended = new Promise<string>((resolve) =>
      child.once('exit', (code, signal) => resolve(`exit ${code} signal ${signal}`)),
    );
    try {
      await waitFor('the mock to listen', () => child.exitCode !== null || output().includes('token kit-token'));
      const url = /listening on (\S+)/.exec(output())?.[1];
      writeFileSync(
        join(project, 'mock.mjs'),
        `import { createPlantStoreClient } from '@plant-store/sdk';
const api = createPlantStoreClient({ baseUrl: process.argv[2], token: 'kit-token' });
await api.plants.create({ id: 9223372036854775807n, name: 'from the mock' });
console.log(JSON.stringify(await api.plants.list()));`,
      );
      const listed = await run(process.execPath, ['mock.mjs', url ?? 'http://missing'], { cwd: project });
      expect(JSON.parse(listed.stdout)).toEqual([{ name: 'from the mock' }]);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await ended, output()).toBe('exit 0 signal null');
  });

  it('works from CommonJS against the real server', async () => {
    const token = await server.token('tarball-cjs');
    writeFileSync(
      join(project, 'cjs.cjs'),
      `const { createPlantStoreClient, PlantStoreError } = require('@plant-store/sdk');
const api = createPlantStoreClient({ baseUrl: process.argv[2], token: process.argv[3] });
api.plants.create({ id: 1, name: 'from cjs' })
  .then(() => api.plants.create({ id: 1, name: 'again' }))
  .catch((error) => console.log(JSON.stringify({ conflict: error instanceof PlantStoreError && error.status })));`,
    );
    const { stdout } = await run(process.execPath, ['cjs.cjs', server.url, token], { cwd: project });
    expect(JSON.parse(stdout)).toEqual({ conflict: 409 });
  });

  it.each(['NodeNext', 'Bundler'])('type-checks a consumer program with moduleResolution %s', async (resolution) => {
    writeFileSync(
      join(project, 'main.ts'),
      `import { createPlantStoreClient, type Plant, RateLimitError } from '@plant-store/sdk';
import { createFakePlantStore } from '@plant-store/sdk/testing';
import { createPlantStoreQueries } from '@plant-store/sdk/tanstack';
const api = createPlantStoreClient({ baseUrl: 'http://localhost:3000', token: async () => 'token' });
export async function main(): Promise<Plant[]> {
  await api.plants.create({ id: 1n, name: 'Fern', tag: 'green' });
  // @ts-expect-error a string id does not compile
  await api.plants.delete('1');
  // @ts-expect-error name is required
  await api.plants.create({ id: 2 });
  // @ts-expect-error pageSize is a number
  api.plants.listAll({ pageSize: '10' });
  for await (const plant of api.plants.listAll({ pageSize: 100 }, { timeoutMs: 5_000 })) void plant.tag?.length;
  const { plants, nextCursor } = await api.plants.listPage({ limit: 2 });
  void [plants, nextCursor?.length];
  const { data } = await api.raw.GET('/plants', { params: { query: { limit: 5 } } });
  const retryAfter: number | undefined = new RateLimitError({} as never).retryAfterMs;
  void retryAfter;
  return data ?? (await api.plants.list({ limit: 10 }));
}
export function kit(): string {
  const fake = createFakePlantStore();
  // @ts-expect-error scopes are read and write
  fake.createToken({ subject: 'a', scopes: ['admin'] });
  return fake.createToken({ subject: 'a', scopes: ['read'] });
}
export const pageKey: readonly unknown[] = createPlantStoreQueries(api).page({ limit: 5 }).queryKey;
`,
    );
    const config = `tsconfig.${resolution}.json`;
    writeFileSync(
      join(project, config),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          target: 'ES2022',
          lib: ['ES2022', 'DOM'],
          module: resolution === 'NodeNext' ? 'NodeNext' : 'ESNext',
          moduleResolution: resolution,
          types: [],
        },
        files: ['main.ts'],
      }),
    );
    await expect(run(tsc, ['-p', config], { cwd: project })).resolves.toBeDefined();
  });

  it('is clean under publint and are-the-types-wrong', async () => {
    const publint = await run(bin('publint'), ['run', '--strict', '--pack', 'npm', '.'], { cwd: sdkDir });
    expect(publint.stdout).toMatch(/All good|No problems found/);
    const attw = await run(bin('attw'), [tarball, '--format', 'json']);
    const report = JSON.parse(attw.stdout) as { analysis: { problems: unknown[] } };
    expect(report.analysis.problems).toEqual([]);
  });
});
