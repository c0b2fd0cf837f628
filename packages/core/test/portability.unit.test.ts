// The core runs wherever fetch does, as the SDK's testing kit that bundles it must: no Node-only module or global in
// its sources (its tsconfig also checks them without Node's types), and no environment read.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const src = new URL('../src/', import.meta.url).pathname;
const sources = (readdirSync(src, { recursive: true }) as string[]).filter((name) => name.endsWith('.ts'));

describe('portability', () => {
  it.each(sources)('src/%s uses no Node-only module or global, and reads no environment', (name) => {
    const code = readFileSync(join(src, name), 'utf8').replace(/^\s*(\/\/|\/?\*).*$/gm, '');
    expect(code).not.toMatch(/from '(node:|fs|path|os|http|https|crypto|buffer|stream|util|events)'/);
    expect(code).not.toMatch(/\b(require|process|Buffer|__dirname|__filename|global|setImmediate)\b/);
    expect(code).not.toMatch(/import\.meta\.env|Deno\.|Bun\./);
  });

  it('imports nothing but the contract', () => {
    const imported = sources.flatMap((name) =>
      [...readFileSync(join(src, name), 'utf8').matchAll(/\bfrom\s+'([^'.][^']*)'/g)].map((match) => match[1]),
    );
    expect(new Set(imported)).toEqual(new Set(['@plant-store/contract']));
  });
});
