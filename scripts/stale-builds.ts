// Which packages' dist/ is older than their sources, and building only those: `pnpm start` (scripts/start.ts) and the
// test tiers that run the compiled code (scripts/test/build-once.ts) share it. A stat of every source file costs a few
// milliseconds; a tsc run on a fresh tree costs seconds.
// Runs on Node's own type stripping (`node scripts/start.ts`), so: erasable TypeScript only, node: imports only.
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export const root = new URL('..', import.meta.url).pathname;

export interface Build {
  dir: string;
  /** Files and folders whose changes make dist/ stale. */
  sources: string[];
  /** The package's `build` script, command by command. */
  commands: [string, string[]][];
}

const tsc = `${root}node_modules/.bin/tsc`;
// tsc never deletes what a moved or removed source compiled to, and such a file, older than every source, would keep
// dist/ stale for ever (see isFresh): each build starts from an empty dist/, as the packages' build scripts do.
const emptyDist: [string, string[]] = [
  process.execPath,
  ['-e', "require('node:fs').rmSync('dist', { recursive: true, force: true })"],
];

/** What the server runs: the contract, the core, the conformance checker (`plant-store conformance`), then the server. */
export const SERVER_BUILDS: Build[] = [
  {
    dir: 'packages/contract',
    sources: ['src', 'package.json', 'tsconfig.build.json', '../../openapi.yaml'],
    // As the package's build script: the copy of openapi.yaml is part of dist/ (and of its age) too.
    commands: [
      emptyDist,
      [tsc, ['-p', 'tsconfig.build.json']],
      [process.execPath, ['-e', "require('node:fs').copyFileSync('../../openapi.yaml', 'dist/openapi.yaml')"]],
    ],
  },
  {
    dir: 'packages/core',
    sources: ['src', 'package.json', 'tsconfig.build.json'],
    commands: [emptyDist, [tsc, ['-p', 'tsconfig.build.json']]],
  },
  {
    dir: 'packages/conformance',
    // One bundle with the contract's and the core's code and a copy of openapi.yaml (tsup.config.ts).
    sources: ['src', 'package.json', 'tsup.config.ts', '../contract/src', '../core/src', '../../openapi.yaml'],
    commands: [['node_modules/.bin/tsup', []]],
  },
  {
    dir: 'packages/server',
    sources: ['src', 'package.json', 'tsconfig.build.json'],
    commands: [emptyDist, [tsc, ['-p', 'tsconfig.build.json']]],
  },
];

/** The newest (or, with `oldest`, the oldest) modification time of the files under `paths`. */
function mtime(paths: string[], oldest = false): number {
  let found = oldest ? Number.POSITIVE_INFINITY : 0;
  const visit = (path: string) => {
    const stat = statSync(path, { throwIfNoEntry: false });
    if (!stat) return;
    if (stat.isDirectory()) {
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
  const built = mtime([join(root, build.dir, 'dist')], true);
  return Number.isFinite(built) && built > mtime(build.sources.map((source) => join(root, build.dir, source)));
}

/** Builds, in order, the packages whose dist/ is stale; returns the folders it built. */
export function buildStale(builds: Build[]): string[] {
  const built: string[] = [];
  for (const build of builds) {
    if (isFresh(build)) continue;
    for (const [command, args] of build.commands)
      execFileSync(command, args, { cwd: join(root, build.dir), stdio: 'inherit' });
    built.push(build.dir);
  }
  return built;
}
