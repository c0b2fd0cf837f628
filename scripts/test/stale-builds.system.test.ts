// stale-builds.ts, on a throwaway package: a dist/ older than any source (a file changed, added or removed) is stale,
// and only stale packages are built, each by its own package.json `build` script, so `pnpm install` then `pnpm test`
// compiles each package once.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { type Build, buildStale, isFresh } from '../stale-builds.ts';

const dir = mkdtempSync(join(tmpdir(), 'stale-builds-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const build: Build = { dir, sources: ['src', 'package.json'] };
const HOUR = 3_600;
const now = Math.floor(Date.now() / 1000);

/** Sets a path's modification time to `seconds` from now. */
const age = (path: string, seconds: number) => utimesSync(join(dir, path), now + seconds, now + seconds);

beforeEach(() => {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'src'), { recursive: true });
  mkdirSync(join(dir, 'dist'));
  // The build script counts its runs in a file that is no source.
  const script = 'echo built >> runs.log; mkdir -p dist && echo out > dist/index.js';
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ scripts: { build: script } }));
  writeFileSync(join(dir, 'src/index.ts'), 'export {};');
  writeFileSync(join(dir, 'dist/index.js'), 'export {};');
  for (const path of ['package.json', 'src/index.ts', 'src']) age(path, -2 * HOUR);
  age('dist/index.js', -HOUR);
});

const runs = () => readFileSync(join(dir, 'runs.log'), 'utf8').split('\n').filter(Boolean).length;

describe('isFresh', () => {
  it('is fresh when every file in dist/ is newer than every source', () => {
    expect(isFresh(build)).toBe(true);
  });

  it('is stale without a dist/, or with an empty one', () => {
    rmSync(join(dir, 'dist/index.js'));
    expect(isFresh(build)).toBe(false);
    rmSync(join(dir, 'dist'), { recursive: true });
    expect(isFresh(build)).toBe(false);
  });

  it('is stale when a source changed after the build', () => {
    age('src/index.ts', 0);
    expect(isFresh(build)).toBe(false);
  });

  it('is stale when a source was removed after the build (its folder changed)', () => {
    unlinkSync(join(dir, 'src/index.ts'));
    expect(isFresh(build)).toBe(false);
  });
});

describe('buildStale', () => {
  it('builds a stale package with its own build script, and a fresh one not at all', () => {
    expect(buildStale([build])).toEqual([]);
    age('package.json', 0);
    expect(buildStale([build])).toEqual([dir]);
    expect(runs()).toBe(1);
    expect(isFresh(build)).toBe(true);
    expect(buildStale([build])).toEqual([]);
    expect(runs()).toBe(1);
  });
});
