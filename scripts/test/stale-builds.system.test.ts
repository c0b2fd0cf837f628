// buildStale on throwaway packages (app depends on lib through `workspace:*`): only stale packages are built, each by
// its own package.json `build` script and in dependency order, so a change of lib rebuilds lib and then app in one
// pass; a build that fails leaves its package stale however much of dist/ it wrote, and the next pass builds it again.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { type Build, buildStale, describeBuilt, isFresh } from '../stale-builds.ts';

const dir = mkdtempSync(join(tmpdir(), 'stale-builds-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const lib: Build = { dir: join(dir, 'lib'), sources: ['src', 'package.json'] };
const app: Build = { dir: join(dir, 'app'), sources: ['src', 'package.json'] };
const now = Math.floor(Date.now() / 1000);

/** The package's build script: logs its run in a file that is no source, writes dist/, fails while FAIL exists. */
const SCRIPT = 'echo built >> runs.log; mkdir -p dist && echo out > dist/index.js; test ! -e FAIL';

beforeEach(() => {
  rmSync(dir, { recursive: true, force: true });
  for (const [name, dependencies] of [
    ['lib', {}],
    ['app', { lib: 'workspace:*' }],
  ] as const) {
    mkdirSync(join(dir, name, 'src'), { recursive: true });
    writeFileSync(join(dir, name, 'package.json'), JSON.stringify({ name, dependencies, scripts: { build: SCRIPT } }));
    writeFileSync(join(dir, name, 'src/index.ts'), 'export {};');
    for (const path of ['package.json', 'src/index.ts', 'src']) utimesSync(join(dir, name, path), now - 60, now - 60);
  }
});

const runs = (build: Build) =>
  readFileSync(join(build.dir, 'runs.log'), { encoding: 'utf8', flag: 'a+' }).split('\n').filter(Boolean).length;

describe('buildStale', () => {
  it('builds what is stale with its own build script, a dependent after its dependency, and nothing fresh', () => {
    expect(buildStale([lib, app]).map((built) => built.dir)).toEqual([lib.dir, app.dir]);
    expect([runs(lib), runs(app)]).toEqual([1, 1]);
    expect(buildStale([lib, app])).toEqual([]);
    writeFileSync(join(lib.dir, 'src/index.ts'), 'export const changed = 1;');
    const built = buildStale([lib, app]);
    expect(describeBuilt(built)).toBe(`${lib.dir} (a source is newer), ${app.dir} (${lib.dir}/dist is newer)`);
    expect([runs(lib), runs(app)]).toEqual([2, 2]);
    expect(isFresh(app, [lib, app])).toBe(true);
  });

  it('leaves a package whose build failed stale, though its dist/ is newer than every source, and builds it again', () => {
    writeFileSync(join(lib.dir, 'FAIL'), '');
    expect(() => buildStale([lib, app])).toThrow(`${lib.dir}: its build script failed`);
    expect(isFresh(lib, [lib, app])).toBe(false);
    rmSync(join(lib.dir, 'FAIL'));
    expect(buildStale([lib, app]).map((built) => built.dir)).toEqual([lib.dir, app.dir]);
    expect(runs(lib)).toBe(2);
  });
});
