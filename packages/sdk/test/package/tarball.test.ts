// Proves the tarball, not the source: pack the SDK with pnpm, install it with npm into an empty project outside the
// workspace, import it from ESM and CommonJS against the real server, type-check a TypeScript program against it,
// and run publint and attw on what would be published.
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startTestServer, type TestServer } from '@plant-store/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const sdkDir = new URL('../..', import.meta.url).pathname;
const bin = (name: string) => join(sdkDir, 'node_modules/.bin', name);
const tsc = new URL('../../../../node_modules/.bin/tsc', import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), 'plant-store-sdk-tarball-'));
const project = join(work, 'consumer');
let tarball: string;
let server: TestServer;

beforeAll(async () => {
  await run('npx', ['-y', 'pnpm@10.34.9', 'pack', '--pack-destination', work], { cwd: sdkDir });
  tarball = join(work, readdirSync(work).find((name) => name.endsWith('.tgz'))!);
  await run('mkdir', ['-p', project]);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball], { cwd: project });
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
    expect(files).toContain('package/README.md');
    expect(files).toContain('package/CHANGELOG.md');
    expect(files.filter((file) => file.includes('/src/') || file.includes('/test/'))).toEqual([]);
    const installed = join(project, 'node_modules/@plant-store/sdk');
    for (const types of ['dist/index.d.ts', 'dist/index.d.cts']) {
      expect(readFileSync(join(installed, types), 'utf8')).not.toContain('@plant-store/');
    }
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'));
    expect(manifest.dependencies).toEqual({ 'openapi-fetch': expect.stringMatching(/^\d/) });
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
