// vitest globalSetup of the system and package tiers: builds the contract, the server and the SDK, unless their
// dist/ is newer than every source (as it is right after `pnpm build`, which `pnpm test` runs first). Tests that
// start the real `plant-store` process run the compiled server, and the SDK's tarball and browser tests pack the same
// fresh dist/. The unit tier never needs it. Several projects share this setup; it builds at most once per run.
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('../..', import.meta.url).pathname;

interface Build {
  dir: string;
  /** Files and folders whose changes make dist/ stale. */
  sources: string[];
  /** The package's `build` script, command by command. */
  commands: [string, string[]][];
}

const BUILDS: Build[] = [
  {
    dir: 'packages/contract',
    sources: ['src', 'package.json', 'tsconfig.build.json'],
    commands: [[`${root}node_modules/.bin/tsc`, ['-p', 'tsconfig.build.json']]],
  },
  {
    dir: 'packages/server',
    sources: ['src', 'package.json', 'tsconfig.build.json'],
    commands: [[`${root}node_modules/.bin/tsc`, ['-p', 'tsconfig.build.json']]],
  },
  {
    dir: 'packages/sdk',
    sources: ['src', 'package.json', 'tsup.config.ts', '../contract/src'],
    commands: [
      ['node_modules/.bin/tsup', []],
      [process.execPath, ['scripts/size.mjs']],
    ],
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

function isFresh(build: Build): boolean {
  const dist = join(root, build.dir, 'dist');
  const built = mtime([dist], true);
  return Number.isFinite(built) && built > mtime(build.sources.map((source) => join(root, build.dir, source)));
}

const state = globalThis as { plantStoreBuilt?: boolean };

export default function setup(): void {
  if (state.plantStoreBuilt) return;
  state.plantStoreBuilt = true;
  for (const build of BUILDS) {
    if (isFresh(build)) continue;
    for (const [command, args] of build.commands)
      execFileSync(command, args, { cwd: join(root, build.dir), stdio: 'inherit' });
  }
}
