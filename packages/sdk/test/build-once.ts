// vitest globalSetup: builds the SDK once before any test file runs, so the tarball and browser tests, which run in
// parallel, pack the same fresh dist/ instead of rebuilding it under each other's feet.
import { execFileSync } from 'node:child_process';

export default function setup(): void {
  const sdkDir = new URL('..', import.meta.url).pathname;
  execFileSync(`${sdkDir}node_modules/.bin/tsup`, [], { cwd: sdkDir, stdio: 'ignore' });
}
