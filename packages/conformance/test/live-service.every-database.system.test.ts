// `plant-store conformance` pointed at the real service, on SQLite and on PostgreSQL: every check passes, the
// stateful checks really ran (paging, exact ids beyond 2^53, two principals, deletes), and nothing it created is left.
import { seededRandom, startTestServer, type TestServer } from '@plant-store/test-kit';
import { runConformance, tally } from '@plant-store/test-kit/conformance-run';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

describe('plant-store conformance against the service', () => {
  it('passes every check with two principals and a read-only token, and deletes what it created', async () => {
    const seed = seededRandom('conformance live-service').int(0, 2 ** 31 - 1);
    const [alice, bob, reader] = await Promise.all([
      t.token('conformance-alice'),
      t.token('conformance-bob'),
      t.token('conformance-reader', ['read']),
    ]);
    const run = await runConformance({
      baseUrl: t.url,
      tokens: [alice, bob],
      args: ['--read-token', reader, '--requests', '120', '--seed', String(seed)],
    });
    expect(run.code, run.output).toBe(0);
    expect(run.output).toContain(`PASSED: every check held (seed ${seed}).`);
    // The stateful checks ran, not only the single requests.
    for (const [operationId, check] of [
      ['getPlants', 'model-listing'],
      ['getPlants', 'link'],
      ['getPlants', 'principal-isolation'],
      ['getPlants', 'deleted-gone'],
      ['createPlant', 'id-exact'],
      ['deletePlant', 'id-exact'],
      ['deletePlant', 'principal-isolation'],
      ['createPlant', 'expected-status'],
      ['deletePlant', 'expected-status'],
      ['createPlant', 'www-authenticate'],
      ['deletePlant', 'cleanup'],
      ['getPlants', 'ignored-auth'],
      ['createPlant', 'ignored-auth'],
      ['deletePlant', 'ignored-auth'],
      ['(PUT /plants)', 'unsupported-method'],
      ['(POST /plants/{id})', 'unsupported-method'],
      ['createPlant', 'missing-required-header'],
      ['createPlant', 'ensure-resource-availability'],
      ['createPlant', 'use-after-free'],
      ['deletePlant', 'use-after-free'],
      ['getPlants', 'use-after-free'],
      ['getPlants', 'response-headers-conformance'],
      ['createPlant', 'negative-data-rejection'],
      ['createPlant', 'positive-data-acceptance'],
      ['getPlants', 'cache-isolation'],
      ['getPlants', 'etag-per-principal'],
      ['createPlant', 'idempotency'],
      ['getPlants', 'link-walk-under-writes'],
      ['getPlants', 'header-fuzzing'],
    ] as const) {
      // A check with no row in the report counts as 0 passed, and the failure names it and shows the report.
      expect(
        tally(run.output, operationId, check)?.passed ?? 0,
        `${operationId} ${check}\n${run.output}`,
      ).toBeGreaterThan(0);
    }
    for (const subject of ['conformance-alice', 'conformance-bob', 'conformance-reader']) {
      expect(new TextDecoder().decode((await t.store.plants.list(subject, { limit: 10 })).body)).toBe('[]');
    }
  }, 240_000);
});
