// The SDK runs wherever fetch does: no Node-only module or global in its source or its build (the testing kit and
// the TanStack helpers included), nothing imported at run time but openapi-fetch, and a size that stays within the
// budget the README states.
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const sdkDir = new URL('..', import.meta.url).pathname;
const read = (path: string) => readFileSync(join(sdkDir, path), 'utf8');
const sources = (readdirSync(join(sdkDir, 'src'), { recursive: true }) as string[]).filter((name) =>
  name.endsWith('.ts'),
);

describe('portability', () => {
  it.each(sources)('src/%s uses no Node-only module or global, and reads no environment', (name) => {
    const code = read(`src/${name}`).replace(/^\s*(\/\/|\/?\*).*$/gm, '');
    expect(code).not.toMatch(/from '(node:|fs|path|os|http|https|crypto|buffer|stream|util|events)'/);
    expect(code).not.toMatch(/\b(require|process|Buffer|__dirname|__filename|global|setImmediate)\b/);
    expect(code).not.toMatch(/import\.meta\.env|Deno\.|Bun\./);
  });

  it('imports nothing at run time but openapi-fetch, from ESM and from CommonJS', () => {
    const esm = [...read('dist/index.js').matchAll(/^import\b.*?from\s+['"]([^'"]+)['"]/gm)].map((m) => m[1]);
    const cjs = [...read('dist/index.cjs').matchAll(/\brequire\(['"]([^'"]+)['"]\)/g)].map((m) => m[1]);
    expect(new Set(esm)).toEqual(new Set(['openapi-fetch']));
    expect(new Set(cjs)).toEqual(new Set(['openapi-fetch']));
  });

  it('imports nothing at run time from the testing kit and the TanStack helpers (not even TanStack)', () => {
    for (const entry of ['testing', 'tanstack']) {
      expect(read(`dist/${entry}.js`)).not.toMatch(/^import\b|\bfrom\s+['"]/m);
      expect(read(`dist/${entry}.cjs`)).not.toMatch(/\brequire\(/);
    }
  });

  it.each(['index', 'testing', 'tanstack'])(
    'bundles dist/%s.js for the browser and for an edge runtime without Node built-ins',
    async (entry) => {
      for (const platform of ['browser', 'neutral'] as const) {
        const result = await build({
          entryPoints: [join(sdkDir, `dist/${entry}.js`)],
          external: ['@tanstack/query-core'],
          bundle: true,
          format: 'esm',
          platform,
          mainFields: ['module', 'main'],
          write: false,
          logLevel: 'silent',
        });
        expect(result.errors).toEqual([]);
        expect(result.outputFiles[0]!.text).not.toMatch(/\brequire\(|from ['"]node:/);
      }
    },
  );

  it('ends every built .js and .cjs with exactly one sourceMappingURL comment', () => {
    const built = readdirSync(join(sdkDir, 'dist')).filter((name) => /\.c?js$/.test(name));
    expect(built.length).toBeGreaterThanOrEqual(6);
    for (const name of built) {
      expect(read(`dist/${name}`).match(/\/\/# sourceMappingURL=/g), name).toHaveLength(1);
    }
  });

  it('has self-contained type declarations', () => {
    const declarations = readdirSync(join(sdkDir, 'dist')).filter((name) => /\.d\.c?ts$/.test(name));
    expect(declarations.length).toBeGreaterThanOrEqual(6);
    for (const types of declarations) expect(read(`dist/${types}`)).not.toContain('@plant-store');
    for (const suffix of ['ts', 'cts']) {
      const withPaths = declarations.filter(
        (name) => name.endsWith(`.d.${suffix}`) && /interface paths\b|type paths\b/.test(read(`dist/${name}`)),
      );
      expect(withPaths).toHaveLength(1);
    }
  });

  it('stays within the size budget its size script states (min+gzip beyond openapi-fetch)', async () => {
    const { stdout } = await run(process.execPath, [join(sdkDir, 'scripts/size.mjs')]);
    const bytes = Number(/\((\d+) bytes\)/.exec(stdout)?.[1]);
    const budget = Number(/budget ([\d.]+) KB/.exec(stdout)?.[1]) * 1024;
    expect(bytes).toBeGreaterThan(500);
    expect(bytes).toBeLessThanOrEqual(budget);
  });
});
