// `pnpm build`, which `pnpm install` and `pnpm gen` run too: compiles the packages that are stale (see
// stale-builds.ts: a source or a workspace dependency's output newer than the last successful build, or no such
// build), so a later `pnpm build`, `pnpm test` or `pnpm start` on the same tree compiles nothing again.
import { BUILDS, buildStale, describeBuilt } from './stale-builds.ts';

const started = performance.now();
try {
  const built = buildStale(BUILDS);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(
    built.length > 0
      ? `built ${describeBuilt(built)} in ${seconds} s`
      : 'every package is built from its current sources and dependencies',
  );
} catch (error) {
  // The builds check no types (tsc --noCheck), but the SDK's declaration bundle does: its error may start upstream.
  console.error(`build: ${(error as Error).message}; \`pnpm typecheck\` reports a type error in the file it is in`);
  process.exit(1);
}
