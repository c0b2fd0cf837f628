// Test tiers, picked by folder: a test file's tier is the `unit/`, `integration/`, `system/` or `package/` folder
// anywhere in its path, and a `both-stores/` folder inside the integration or system tier runs it twice, on SQLite and
// on PostgreSQL. So a new folder of tests (say packages/server/test/store/sqlite/) sorts itself with
// `sqlite/integration/…` and `sqlite/system/…`. A test file in no tier, or in two, stops the run (see tierProblems).
//
//   unit         pure: handlers on the memory engine, rules, codecs, the SDK against an injected fetch, components;
//                no database, no app, no build, no child process (pnpm test:unit, at most 15 s)
//   integration  the whole app through `inject`, and the stores on a real SQLite file or PostgreSQL schema; no build,
//                no child process (pnpm test:integration)
//   system       child processes, real sockets, crashes, cluster, CLI, the SDK against a listening server; builds first
//   package      the SDK's tarball, bundles and browsers, /docs in Chromium; builds first
//
// Type tests (*.test-d.ts) sit in unit/ folders but are not run by vitest: each package's tsconfig includes its test/
// folder, so `pnpm typecheck` (tsc -b) checks every expectTypeOf and @ts-expect-error in them.
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { defineConfig } from 'vitest/config';

const TIERS = ['unit', 'integration', 'system', 'package'] as const;
const TEST_ROOTS = ['packages/*/test', 'examples/*/test', 'tools/*/test', 'scripts/test'];
const tests = (tier: string, suffix = '') => TEST_ROOTS.map((root) => `${root}/**/${tier}/**/${suffix}*.test.{ts,tsx}`);
const bothStores = (tier: string) => tests(tier, 'both-stores/**/');

// The workspace packages are TypeScript in src/ under the `source` export condition (see their package.json), so
// the unit tier runs on the sources with no build. Processes the tests start run dist/, built by build-once.ts.
const CONDITIONS = ['source', 'module', 'node', 'development|production'];

/** Test files that sit in no tier folder or in more than one; the run stops until they are moved. */
function tierProblems(): string[] {
  const root = import.meta.dirname;
  const problems: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name.startsWith('.')) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.test(-d)?\.tsx?$/.test(entry.name)) {
        const segments = relative(root, path).split('/');
        const tiers = TIERS.filter((tier) => segments.includes(tier));
        if (tiers.length !== 1) problems.push(`${relative(root, path)} is in ${tiers.length} tier folders`);
        else if (segments.includes('both-stores') && !['integration', 'system'].includes(tiers[0] as string))
          problems.push(`${relative(root, path)} is in both-stores/ outside integration/ and system/`);
      }
    }
  };
  for (const dir of ['packages', 'examples', 'tools', 'scripts']) walk(join(root, dir));
  return problems;
}

const problems = tierProblems();
if (problems.length > 0) {
  throw new Error(
    `Every test file belongs to exactly one tier folder (unit/, integration/, system/, package/): ${problems.join('; ')}`,
  );
}

const sqlite = { PLANT_STORE_TEST_DATABASE: 'sqlite' };
const postgres = { PLANT_STORE_TEST_DATABASE: 'postgres' };
const buildOnce = ['scripts/test/build-once.ts'];

export default defineConfig({
  // The example app's component tests are .tsx (examples/web; they pick happy-dom per file).
  oxc: { jsx: { runtime: 'automatic' } },
  resolve: { conditions: CONDITIONS },
  ssr: { resolve: { conditions: CONDITIONS } },
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Tests that spawn servers and browsers compete for two cores; keep parallelism modest.
    maxWorkers: 2,
    projects: [
      // Unit and integration files share a worker thread's loaded modules (Fastify, Ajv, the app) instead of importing
      // them per file.
      { extends: true, test: { name: 'unit', include: tests('unit'), pool: 'threads', isolate: false } },
      {
        extends: true,
        test: { name: 'integration', include: tests('integration'), pool: 'threads', isolate: false, env: sqlite },
      },
      {
        extends: true,
        test: { name: 'integration-postgres', include: bothStores('integration'), env: postgres, isolate: false },
      },
      { extends: true, test: { name: 'system', include: tests('system'), env: sqlite, globalSetup: buildOnce } },
      {
        extends: true,
        test: { name: 'system-postgres', include: bothStores('system'), env: postgres, globalSetup: buildOnce },
      },
      { extends: true, test: { name: 'package', include: tests('package'), env: sqlite, globalSetup: buildOnce } },
    ],
  },
});
