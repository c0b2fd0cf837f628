// The SDK runs wherever fetch does: no Node-only module or global in its source or its build, nothing imported at
// run time but openapi-fetch, and a size that stays within the budget the README states.
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const sdkDir = new URL('../..', import.meta.url).pathname;
const read = (path: string) => readFileSync(join(sdkDir, path), 'utf8');
const sources = readdirSync(join(sdkDir, 'src')).filter((name) => name.endsWith('.ts'));

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

  it('bundles for the browser and for an edge runtime without Node built-ins', async () => {
    for (const platform of ['browser', 'neutral'] as const) {
      const result = await build({
        entryPoints: [join(sdkDir, 'dist/index.js')],
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
  });

  it('has self-contained type declarations', () => {
    for (const types of ['dist/index.d.ts', 'dist/index.d.cts']) {
      const text = read(types);
      expect(text).not.toContain('@plant-store');
      expect(text).toMatch(/interface paths\b|type paths\b/);
    }
  });

  it('stays within its size budget (5 KB min+gzip beyond openapi-fetch)', async () => {
    const { stdout } = await run(process.execPath, [join(sdkDir, 'scripts/size.mjs')]);
    const bytes = Number(/\((\d+) bytes\)/.exec(stdout)?.[1]);
    expect(bytes).toBeGreaterThan(500);
    expect(bytes).toBeLessThanOrEqual(5 * 1024);
  });
});
