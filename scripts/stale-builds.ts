// Which packages need a build, and building only those (each with its own package.json `build` script): `pnpm build`
// (scripts/build.ts, which `pnpm install` and `pnpm gen` run too), `pnpm start` (scripts/start.ts) and the test tiers
// that run the compiled code (scripts/test/build-once.ts) share it, so `pnpm install` then `pnpm test` compiles each
// package once. A stat of every source file costs a few milliseconds; a build on a fresh tree costs seconds.
// Runs on Node's own type stripping (`node scripts/build.ts`), so: erasable TypeScript only, node: imports only.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join, resolve } from 'node:path';

export const root = new URL('..', import.meta.url).pathname;

export interface Build {
  /** The package's folder, from the repository root (or absolute). */
  dir: string;
  /** Files and folders, from `dir`, whose changes make dist/ stale. */
  sources: string[];
}

// The compiler settings every package's tsconfig extends.
const BASE = '../../tsconfig.base.json';

/** What the server runs: the contract, the core, the conformance checker (`plant-store conformance`), then the server. */
export const SERVER_BUILDS: Build[] = [
  { dir: 'packages/contract', sources: ['src', 'package.json', 'tsconfig.build.json', BASE, '../../openapi.yaml'] },
  { dir: 'packages/core', sources: ['src', 'package.json', 'tsconfig.build.json', BASE] },
  // One bundle with the contract's and the core's code and a copy of openapi.yaml (tsup.config.ts).
  {
    dir: 'packages/conformance',
    sources: ['src', 'package.json', 'tsup.config.ts', BASE, '../contract/src', '../core/src', '../../openapi.yaml'],
  },
  { dir: 'packages/server', sources: ['src', 'package.json', 'tsconfig.build.json', BASE] },
];

/** Every package with a dist/: the server's, then the SDK (which bundles the contract's and the core's sources). */
export const BUILDS: Build[] = [
  ...SERVER_BUILDS,
  {
    dir: 'packages/sdk',
    sources: [
      'src',
      'bin',
      'package.json',
      'tsconfig.json',
      'tsup.config.ts',
      'scripts',
      BASE,
      '../contract/src',
      '../core/src',
    ],
  },
];

/**
 * Written beside dist/ when the package's build script succeeded, never inside it (dist/ is what the package ships).
 * A build that failed or was cut short leaves none, so its package stays stale whatever its dist/ holds.
 */
export const STAMP = '.tmp/build-stamp';

const packageJson = (dir: string) =>
  JSON.parse(readFileSync(resolve(root, dir, 'package.json'), 'utf8')) as {
    name: string;
    dependencies?: Record<string, string>;
    devDependencies?: Record<string, string>;
    scripts: { build: string };
  };

/** The builds among `builds` that `build` depends on: its package.json's `workspace:` dependencies, dev ones included. */
export function workspaceDependencies(build: Build, builds: Build[]): Build[] {
  const { dependencies = {}, devDependencies = {} } = packageJson(build.dir);
  const names = Object.entries({ ...dependencies, ...devDependencies })
    .filter(([, range]) => range.startsWith('workspace:'))
    .map(([name]) => name);
  return builds.filter((other) => names.includes(packageJson(other.dir).name));
}

/**
 * The newest (or, with `oldest`, the oldest) modification time of the files under `paths`. The newest counts
 * folders too: removing or renaming a source changes only its folder's time.
 */
function mtime(paths: string[], oldest = false): number {
  let found = oldest ? Number.POSITIVE_INFINITY : 0;
  const visit = (path: string) => {
    const stat = statSync(path, { throwIfNoEntry: false });
    if (!stat) return;
    if (stat.isDirectory()) {
      if (!oldest) found = Math.max(found, stat.mtimeMs);
      for (const entry of readdirSync(path)) visit(join(path, entry));
      return;
    }
    found = oldest ? Math.min(found, stat.mtimeMs) : Math.max(found, stat.mtimeMs);
  };
  for (const path of paths) visit(path);
  return found;
}

/** Why `build` needs building, or undefined when its last build succeeded and nothing it builds from changed since. */
export function staleness(build: Build, builds: Build[] = BUILDS): string | undefined {
  const at = (path: string) => resolve(root, build.dir, path);
  const stamp = statSync(at(STAMP), { throwIfNoEntry: false })?.mtimeMs;
  if (stamp === undefined) return 'no successful build';
  const dist = at('dist');
  if (!Number.isFinite(mtime([dist], true))) return 'no dist/';
  if (mtime([dist]) > stamp) return 'dist/ was written after its last successful build';
  if (mtime(build.sources.map(at)) > stamp) return 'a source is newer';
  const newer = workspaceDependencies(build, builds).find(
    (dependency) => mtime([resolve(root, dependency.dir, 'dist')]) > stamp,
  );
  return newer ? `${newer.dir}/dist is newer` : undefined;
}

/** dist/ is the output of the build's current sources and its workspace dependencies' current output. */
export function isFresh(build: Build, builds: Build[] = BUILDS): boolean {
  return staleness(build, builds) === undefined;
}

/**
 * Runs the package's `build` script as pnpm would: in its folder, through the shell, its own and the root's
 * node_modules/.bin first on the PATH; the stamp goes first and comes back only if the script succeeds. Each build
 * script starts from an empty dist/: tsc never deletes what a moved or removed source compiled to.
 */
function runBuildScript(build: Build): void {
  const cwd = resolve(root, build.dir);
  const stamp = join(cwd, STAMP);
  rmSync(stamp, { force: true });
  const bins = [join(cwd, 'node_modules/.bin'), join(root, 'node_modules/.bin'), process.env.PATH ?? ''];
  try {
    execFileSync('/bin/sh', ['-c', packageJson(build.dir).scripts.build], {
      cwd,
      stdio: 'inherit',
      env: { ...process.env, PATH: bins.join(delimiter) },
    });
  } catch (cause) {
    throw new Error(`${build.dir}: its build script failed (its output is above)`, { cause });
  }
  mkdirSync(dirname(stamp), { recursive: true });
  writeFileSync(stamp, `${new Date().toISOString()}\n`);
}

/**
 * Builds, in order (each package after the workspace packages it depends on), those that are stale; returns what it
 * built and why. A failed build throws, and its package stays stale.
 */
export function buildStale(builds: Build[]): Built[] {
  const built: Built[] = [];
  for (const build of builds) {
    const why = staleness(build, builds);
    if (why === undefined) continue;
    runBuildScript(build);
    built.push({ dir: build.dir, why });
  }
  return built;
}

/** A package `buildStale` built, and why it was stale. */
export interface Built {
  dir: string;
  why: string;
}

/** `packages/core (packages/contract/dist is newer), ...` */
export const describeBuilt = (built: Built[]) => built.map(({ dir, why }) => `${dir} (${why})`).join(', ');
