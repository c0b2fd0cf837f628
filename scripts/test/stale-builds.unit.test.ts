// The staleness rule of stale-builds.ts, on two throwaway packages (app depends on lib through `workspace:*`): a
// package is fresh only after a successful build (its stamp) newer than every source, every file of its own dist/
// and its workspace dependencies' dist/. No build runs here (stale-builds.system.test.ts runs them).
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { BUILDS, type Build, isFresh, STAMP, staleness, workspaceDependencies } from '../stale-builds.ts';

const dir = mkdtempSync(join(tmpdir(), 'stale-builds-unit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const lib: Build = { dir: join(dir, 'lib'), sources: ['src', 'package.json'] };
const app: Build = { dir: join(dir, 'app'), sources: ['src', 'package.json'] };
const builds = [lib, app];
const HOUR = 3_600;
const now = Math.floor(Date.now() / 1000);

/** Writes a file (its folders made) and sets its modification time to `seconds` from now. */
function file(path: string, seconds: number, text = 'export {};') {
  mkdirSync(dirname(join(dir, path)), { recursive: true });
  writeFileSync(join(dir, path), text);
  age(path, seconds);
}
const age = (path: string, seconds: number) => utimesSync(join(dir, path), now + seconds, now + seconds);

beforeEach(() => {
  rmSync(dir, { recursive: true, force: true });
  const manifest = (name: string, dependencies: Record<string, string>) =>
    JSON.stringify({ name, dependencies, scripts: { build: 'true' } });
  for (const [name, dependencies] of [
    ['lib', { yaml: '^2' }],
    ['app', { lib: 'workspace:*', yaml: '^2' }],
  ] as const) {
    // Sources two hours old, dist/ one hour, the stamp just after it: built, and nothing changed since.
    file(`${name}/package.json`, -2 * HOUR, manifest(name, dependencies));
    file(`${name}/src/index.ts`, -2 * HOUR);
    age(`${name}/src`, -2 * HOUR);
    file(`${name}/dist/index.js`, -HOUR);
    age(`${name}/dist`, -HOUR);
    file(`${name}/${STAMP}`, -HOUR + 1, 'built');
  }
});

describe('staleness', () => {
  it('is fresh after a successful build that nothing changed since', () => {
    expect(staleness(lib, builds)).toBeUndefined();
    expect(isFresh(app, builds)).toBe(true);
  });

  it('is stale without a successful build, however new its dist/ (a build that failed after writing some)', () => {
    unlinkSync(join(lib.dir, STAMP));
    age('lib/dist/index.js', 0);
    expect(staleness(lib, builds)).toBe('no successful build');
  });

  it('is stale without a dist/, or with an empty one', () => {
    rmSync(join(lib.dir, 'dist/index.js'));
    expect(staleness(lib, builds)).toBe('no dist/');
    rmSync(join(lib.dir, 'dist'), { recursive: true });
    expect(staleness(lib, builds)).toBe('no dist/');
  });

  it('is stale when dist/ was written after the stamp (a build run by hand, which may have failed)', () => {
    file('lib/dist/extra.js', 0);
    expect(staleness(lib, builds)).toBe('dist/ was written after its last successful build');
  });

  it('is stale when a source changed or was removed after the build', () => {
    age('lib/src/index.ts', 0);
    expect(staleness(lib, builds)).toBe('a source is newer');
    file('app/src/other.ts', -2 * HOUR);
    age('app/src', -2 * HOUR);
    expect(isFresh(app, builds)).toBe(true);
    unlinkSync(join(app.dir, 'src/other.ts'));
    expect(staleness(app, builds)).toBe('a source is newer');
  });

  it("is stale when a workspace dependency's output is newer, though its own sources are not", () => {
    // lib rebuilt after a change of its own (as the contract is after `pnpm gen`): app built from the old lib.
    file('lib/dist/index.js', 0);
    file(`lib/${STAMP}`, 1, 'built');
    expect(staleness(lib, builds)).toBeUndefined();
    expect(staleness(app, builds)).toBe(`${lib.dir}/dist is newer`);
  });

  it('ignores a dependency that is no workspace package among the builds', () => {
    expect(workspaceDependencies(lib, builds)).toEqual([]);
    expect(workspaceDependencies(app, builds)).toEqual([lib]);
    expect(workspaceDependencies(app, [app])).toEqual([]);
  });
});

describe("the repository's builds", () => {
  it('come after the workspace packages they build from, so one pass builds a changed package and its dependents', () => {
    const dirsOf = (list: Build[]) => list.map((build) => build.dir);
    const order = dirsOf(BUILDS);
    for (const [at, build] of BUILDS.entries()) {
      const earlier = order.slice(0, at);
      expect(dirsOf(workspaceDependencies(build, BUILDS)).filter((dep) => !earlier.includes(dep))).toEqual([]);
    }
    expect(dirsOf(workspaceDependencies(BUILDS.find((build) => build.dir === 'packages/server')!, BUILDS))).toEqual([
      'packages/contract',
      'packages/core',
      'packages/conformance',
    ]);
  });
});
