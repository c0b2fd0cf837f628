// `pnpm build`, which `pnpm install` runs too (the root `prepare` script): compiles the packages whose dist/ is older
// than their sources (see stale-builds.ts), so a later `pnpm build`, `pnpm test` or `pnpm start` on the same tree
// compiles nothing again. A package's own `pnpm --filter <name> build` always rebuilds it.
import { BUILDS, buildStale } from './stale-builds.ts';

const started = performance.now();
const built = buildStale(BUILDS);
const seconds = ((performance.now() - started) / 1000).toFixed(1);
console.log(built.length > 0 ? `built ${built.join(', ')} in ${seconds} s` : 'every dist/ is newer than its sources');
