// Which packages' dist/ is older than their sources, and building only those (each with its own package.json `build`
// script): `pnpm build` (scripts/build.ts, which `pnpm install` runs too), `pnpm start` (scripts/start.ts) and the test
// tiers that run the compiled code (scripts/test/build-once.ts) share it, so `pnpm install` then `pnpm test` compiles
// each package once. A stat of every source file costs a few milliseconds; a build on a fresh tree costs seconds.
// Runs on Node's own type stripping (`node scripts/build.ts`), so: erasable TypeScript only, node: imports only.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';

export const root = new URL('..', import.meta.url).pathname;

export interface Build {
  /** The package's folder, from the repository root (or absolute). */
  dir: string;
  /** Files and folders whose changes make dist/ stale. */
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

/** dist/ exists and every file in it is newer than every source. */
export function isFresh(build: Build): boolean {
  const built = mtime([resolve(root, build.dir, 'dist')], true);
  return Number.isFinite(built) && built > mtime(build.sources.map((source) => resolve(root, build.dir, source)));
}

/**
 * Runs the package's `build` script as pnpm would: in its folder, through the shell, its own and the root's
 * node_modules/.bin first on the PATH. Each build script starts from an empty dist/: tsc never deletes what a moved
 * or removed source compiled to, and such a file, older than every source, would keep dist/ stale for ever.
 */
function runBuildScript(build: Build): void {
  const cwd = resolve(root, build.dir);
  const script = (JSON.parse(readFileSync(join(cwd, 'package.json'), 'utf8')) as { scripts: { build: string } }).scripts
    .build;
  const bins = [join(cwd, 'node_modules/.bin'), join(root, 'node_modules/.bin'), process.env.PATH ?? ''];
  execFileSync('/bin/sh', ['-c', script], {
    cwd,
    stdio: 'inherit',
    env: { ...process.env, PATH: bins.join(delimiter) },
  });
}

/** Builds, in order, the packages whose dist/ is stale; returns the folders it built. */
export function buildStale(builds: Build[]): string[] {
  const built: string[] = [];
  for (const build of builds) {
    if (isFresh(build)) continue;
    runBuildScript(build);
    built.push(build.dir);
  }
  return built;
}
