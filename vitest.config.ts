// Test tiers, picked by file name: `<subject>.<tier>.test.ts` (tier one of unit, integration, system, package; type
// tests `<subject>.unit.test-d.ts`), in folders that mirror each package's src/ by subject. An integration file named
// `<subject>.every-engine.integration.test.ts` runs once per engine: memory, SQLite and PostgreSQL (the integration
// project runs it on SQLite, integration-memory and integration-postgres again on theirs). A system file named
// `<subject>.every-database.system.test.ts` runs on SQLite and PostgreSQL (system, system-postgres): the memory engine
// is not run at the system tier, where it cost 91 s of wall time for 10 files (docs/tests.md). A test file whose name
// carries no tier, or two, or an engine marker its tier has no projects for, stops the run (see tierProblems).
//
//   unit         pure: handlers on the memory engine, rules, codecs, the SDK against an injected fetch, components;
//                no database, no app, no build, no child process (pnpm test:unit, at most 15 s)
//   integration  the whole app through `inject`, and the stores on a real SQLite file or PostgreSQL schema; no build,
//                no child process (pnpm test:integration)
//   system       child processes, real sockets, crashes, cluster, CLI, the SDK against a listening server; builds first
//   package      the SDK's tarball, bundles and browsers, /docs in Chromium; builds first
//
// Type tests (*.unit.test-d.ts) are not run by vitest: each package's tsconfig.test.json includes its test/ folder, so
// `pnpm typecheck` (tsc -b) checks every expectTypeOf and @ts-expect-error in them.
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { defineConfig } from 'vitest/config';
import { nameProblem, TIERS } from './scripts/test/test-names.ts';

const TEST_ROOTS = ['packages/*/test', 'examples/*/test', 'tools/*/test', 'scripts/test'];
const tests = (name: string) => TEST_ROOTS.map((root) => `${root}/**/*.${name}.test.{ts,tsx}`);

// The workspace packages are TypeScript in src/ under the `source` export condition (see their package.json), so
// the unit tier runs on the sources with no build. Processes the tests start run dist/, built by build-once.ts.
const CONDITIONS = ['source', 'module', 'node', 'development|production'];

/** Test files whose names break the rule above; the run stops until they are renamed. */
function tierProblems(): string[] {
  const root = import.meta.dirname;
  const problems: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name.startsWith('.')) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.test(-d)?\.tsx?$/.test(entry.name)) {
        const problem = nameProblem(entry.name);
        if (problem) problems.push(`${relative(root, path)} ${problem}`);
      }
    }
  };
  for (const dir of ['packages', 'examples', 'tools', 'scripts']) walk(join(root, dir));
  return problems;
}

const problems = tierProblems();
if (problems.length > 0) {
  throw new Error(
    `Every test file is named <subject>[.every-engine|.every-database].<tier>.test.ts, tier one of ${TIERS.join(', ')}: ${problems.join('; ')}`,
  );
}

const engine = (name: 'memory' | 'sqlite' | 'postgres') => ({ PLANT_STORE_TEST_DATABASE: name });
// Every project marks the run's processes and fails the run when one outlives it (test-kit's process-leaks.ts); the
// system and package tiers build first.
const processLeaks = ['packages/test-kit/src/process-leaks.ts'];
const buildOnce = [...processLeaks, 'scripts/test/build-once.ts'];

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
      {
        extends: true,
        test: { name: 'unit', include: tests('unit'), pool: 'threads', isolate: false, globalSetup: processLeaks },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: tests('integration'),
          pool: 'threads',
          isolate: false,
          env: engine('sqlite'),
          globalSetup: processLeaks,
        },
      },
      {
        extends: true,
        test: {
          name: 'integration-memory',
          include: tests('every-engine.integration'),
          pool: 'threads',
          isolate: false,
          env: engine('memory'),
          globalSetup: processLeaks,
        },
      },
      {
        extends: true,
        test: {
          name: 'integration-postgres',
          include: tests('every-engine.integration'),
          env: engine('postgres'),
          isolate: false,
          globalSetup: processLeaks,
        },
      },
      {
        extends: true,
        test: { name: 'system', include: tests('system'), env: engine('sqlite'), globalSetup: buildOnce },
      },
      {
        extends: true,
        test: {
          name: 'system-postgres',
          include: tests('every-database.system'),
          env: engine('postgres'),
          globalSetup: buildOnce,
        },
      },
      {
        extends: true,
        test: { name: 'package', include: tests('package'), env: engine('sqlite'), globalSetup: buildOnce },
      },
    ],
  },
});
