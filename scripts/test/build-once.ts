// vitest globalSetup: builds the server and the SDK once before any test file runs. Tests that start the real
// `plant-store` process run the compiled server, and the SDK's tarball and browser tests, which run in parallel,
// pack the same fresh dist/ instead of rebuilding it under each other's feet.
import { execFileSync } from 'node:child_process';

export default function setup(): void {
  const root = new URL('../..', import.meta.url).pathname;
  execFileSync(`${root}node_modules/.bin/tsc`, ['-p', 'packages/server/tsconfig.build.json'], {
    cwd: root,
    stdio: 'inherit',
  });
  execFileSync(`${root}packages/sdk/node_modules/.bin/tsup`, [], { cwd: `${root}packages/sdk`, stdio: 'ignore' });
}
