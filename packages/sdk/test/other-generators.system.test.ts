// The other generators' recipes of docs/api.md, run as printed: each generator (openapi-typescript, @hey-api/openapi-ts)
// generates from a running service's served contract, the recipe's program type-checks (its @ts-expect-error line
// included: a number id does not compile) and runs against the service, creating, listing page by page through the
// Link header and deleting id 9007199254740993 beside a plant 9007199254740992 that a rounding client would have hit.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createClient as heyApi } from '@hey-api/openapi-ts';
import { startTestServer, type TestServer } from '@plant-store/test-kit';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlantStoreClient } from '../src/index.js';

const execFileAsync = promisify(execFile);
/** Runs a command; a failure's message carries its output (tsc writes its errors to stdout). */
async function run(file: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv }) {
  try {
    return await execFileAsync(file, args, options);
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`${file} ${args.join(' ')} failed:\n${stdout ?? ''}${stderr ?? ''}`);
  }
}
const sdkDir = new URL('..', import.meta.url).pathname;
const repoRoot = new URL('../../..', import.meta.url).pathname;
const tsc = join(repoRoot, 'node_modules/.bin/tsc');
const tsx = join(repoRoot, 'node_modules/.bin/tsx');
// Inside the package, so the recipes' imports resolve from its node_modules (its devDependencies pin each tool).
mkdirSync(join(sdkDir, '.tmp'), { recursive: true });
const work = mkdtempSync(join(sdkDir, '.tmp', 'recipes-'));
let server: TestServer;

/** The fenced blocks of docs/api.md's section on other generators, by the file name on their first line. */
function recipeFiles(): Map<string, string> {
  const manual = readFileSync(join(repoRoot, 'docs/api.md'), 'utf8');
  const section = manual.slice(manual.indexOf('## Other generators'));
  const files = new Map<string, string>();
  for (const [, code] of section.matchAll(/```(?:js|ts)\n([\s\S]*?)```/g)) {
    const name = /^\/\/ ([\w.-]+\.(?:mjs|ts))\b/.exec(code!)?.[1];
    if (name) files.set(name, code!);
  }
  return files;
}

beforeAll(async () => {
  server = await startTestServer({ env: { RATE_LIMIT_MAX: '0' } });
}, 60_000);

afterAll(async () => {
  await server?.close();
  rmSync(work, { recursive: true, force: true });
});

describe('docs/api.md: other generators', () => {
  it('holds a generator script and a program for each recipe', () => {
    expect([...recipeFiles().keys()].sort()).toEqual([
      'generate-hey-api.mjs',
      'generate-openapi-typescript.mjs',
      'plants-hey-api.ts',
      'plants-openapi-fetch.ts',
    ]);
  });

  it.each([
    ['openapi-typescript + openapi-fetch', 'generate-openapi-typescript.mjs', 'plants-openapi-fetch.ts'],
    ['@hey-api/openapi-ts', 'generate-hey-api.mjs', 'plants-hey-api.ts'],
  ])(
    '%s: generated from the served contract, keeps id 9007199254740993 exact and follows Link',
    async (name, generator, program) => {
      const dir = join(work, name.replace(/\W+/g, '-'));
      mkdirSync(dir);
      const files = recipeFiles();
      writeFileSync(join(dir, generator), files.get(generator)!);
      writeFileSync(join(dir, program), files.get(program)!);
      const env = { ...process.env, PLANT_STORE_URL: server.url, PLANT_STORE_TOKEN: await server.token(name) };
      await run(process.execPath, [generator], { cwd: dir, env });

      writeFileSync(
        join(dir, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            strict: true,
            noEmit: true,
            target: 'ES2022',
            lib: ['ES2022', 'DOM', 'DOM.Iterable'],
            module: 'ESNext',
            moduleResolution: 'Bundler',
            skipLibCheck: true,
            types: ['node'],
            typeRoots: [join(repoRoot, 'node_modules/@types')],
          },
          files: [program],
        }),
      );
      // Compiles, so the @ts-expect-error line is an error: the generated types refuse a number id.
      await run(tsc, ['-p', 'tsconfig.json'], { cwd: dir });

      // Beside the plant a client that rounds 9007199254740993 would create over (409) and delete (the wrong plant).
      const sdk = createPlantStoreClient({ baseUrl: server.url, token: env.PLANT_STORE_TOKEN });
      await sdk.plants.create({ id: 1, name: 'Moss' });
      await sdk.plants.create({ id: 9007199254740992n, name: 'Neighbour' });
      const { stdout } = await run(tsx, [program], { cwd: dir, env });
      // Three pages of one plant, in id order: Fern was stored under its own id, after Neighbour's.
      expect(stdout.trim().split('\n')).toEqual(['Moss', 'Neighbour', 'Fern']);
      expect(await sdk.plants.list()).toEqual([{ name: 'Moss' }, { name: 'Neighbour' }]);
    },
    120_000,
  );

  it('types int64 ids as number without the recipes: why the transform and the option are needed', async () => {
    const source = new URL('/openapi.json', server.url);
    const plain = astToString(await openapiTS(source));
    expect(plain).toMatch(/\bid: number;/);
    expect(plain).not.toContain('bigint');
    const output = join(work, 'hey-api-plain');
    await heyApi({
      input: source.href,
      output,
      plugins: ['@hey-api/client-fetch', '@hey-api/sdk'],
      logs: { level: 'silent' },
    });
    const types = readFileSync(join(output, 'types.gen.ts'), 'utf8');
    expect(types).toMatch(/\bid: number;/);
    expect(types).not.toContain('bigint');
  }, 60_000);
});
