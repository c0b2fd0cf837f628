import { defineConfig } from 'vitest/config';

// Suites that talk to a store run twice: on SQLite (the default) and on the machine's PostgreSQL.
const STORE_SUITES = [
  'packages/server/test/store.test.ts',
  'packages/server/test/plants-api.test.ts',
  'packages/server/test/auth-and-errors.test.ts',
  'packages/server/test/server-socket.test.ts',
  'packages/server/test/attack-matrix.test.ts',
  'packages/server/test/hardening/request-rules-inject.test.ts',
  'packages/server/test/hardening/jwt-claims-strict.test.ts',
  'packages/server/test/hardening/anonymous-rate-limit.test.ts',
  'packages/server/test/hardening/one-answer-per-request-socket.test.ts',
];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Tests that spawn servers and browsers compete for two cores; keep parallelism modest.
    maxWorkers: 2,
    globalSetup: ['scripts/test/build-once.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'sqlite',
          include: ['scripts/test/**/*.test.ts', 'packages/*/test/**/*.test.ts'],
          env: { PLANT_STORE_TEST_DATABASE: 'sqlite' },
          typecheck: { enabled: true, include: ['packages/*/test/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
        },
      },
      {
        extends: true,
        test: {
          name: 'postgres',
          include: STORE_SUITES,
          env: { PLANT_STORE_TEST_DATABASE: 'postgres' },
        },
      },
    ],
  },
});
