// What a CI job gets from a failing run: --exclude-checks drops the verdicts it names (a known breakage a pipeline
// accepts), --report-json writes one JSON document with each failure's promise and curl, and the log says the promise
// each failure broke. Against a build that adds an undeclared field, which only `undeclared-field` catches.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '@plant-store/test-kit';
import { addsOwnerField, startProxy } from '@plant-store/test-kit/broken-deployments';
import { conformance, conformanceArgs, tally } from '@plant-store/test-kit/conformance-run';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CHECKS } from '../src/report.js';

let t: TestServer;
let work: string;

beforeAll(async () => {
  t = await startTestServer({ env: { RATE_LIMIT_MAX: '0', RATE_LIMIT_ANONYMOUS_MAX: '0' } });
  work = mkdtempSync(join(tmpdir(), 'plant-store-conformance-report-'));
});
afterAll(async () => {
  await t.close();
  rmSync(work, { recursive: true, force: true });
});

it('reports a failure with its promise and curl in the log and the JSON report, and passes once it is excluded', async () => {
  const proxy = await startProxy(t.url, addsOwnerField);
  try {
    const token = await t.token('report-json');
    const report = join(work, 'conformance.json');
    const args = conformanceArgs({ baseUrl: proxy.url, tokens: [token], args: ['--requests', '0', '--seed', '99'] });
    const failing = await conformance([...args, '--report-json', report]);
    expect(failing.code, failing.output).toBe(1);
    expect(failing.output).toContain(`   The promise it broke: ${CHECKS['undeclared-field']}.`);
    const written = JSON.parse(readFileSync(report, 'utf8'));
    expect(written).toMatchObject({ tool: 'plant-store-conformance', outcome: 'failed', seed: 99 });
    expect(written.replay).toBe(`plant-store conformance --base-url ${proxy.url}/ --seed 99 --requests 0`);
    const failure = written.failures.find((f: { check: string }) => f.check === 'undeclared-field');
    expect(failure).toMatchObject({ operationId: 'createPlant', promise: CHECKS['undeclared-field'] });
    expect(failure.curl[0]).toMatch(/^curl .* -X POST .*\$\{PLANT_STORE_TOKEN\}/);
    expect(written.checks).toContainEqual(
      expect.objectContaining({ check: 'undeclared-field', failed: expect.any(Number) }),
    );
    expect(written.cleanup).toEqual({ deleted: expect.any(Number), left: [] });
    expect(new TextDecoder().decode((await t.store.plants.list('report-json', { limit: 10 })).body)).toBe('[]');

    const excluded = await conformance([...args, '--exclude-checks', 'undeclared-field', '--report-json', report]);
    expect(excluded.code, excluded.output).toBe(0);
    expect(tally(excluded.output, 'createPlant', 'undeclared-field')).toBeUndefined();
    expect(JSON.parse(readFileSync(report, 'utf8'))).toMatchObject({ outcome: 'passed', failures: [] });

    const only = await conformance([...args, '--checks', 'undeclared-field']);
    expect(only.code, only.output).toBe(1);
    expect(only.output).toMatch(/^FAILED: createPlant\/undeclared-field/m);
    expect(tally(only.output, 'createPlant', 'schema')).toBeUndefined();
    expect(only.output).toContain('--checks undeclared-field');
  } finally {
    await proxy.close();
  }
}, 120_000);

it('refuses an unknown check name with exit code 2 before sending anything', async () => {
  const proxy = await startProxy(t.url);
  try {
    const run = await conformance(['--base-url', proxy.url, '--token', 'x', '--checks', 'no-500']);
    expect(run).toMatchObject({
      code: 2,
      output: expect.stringContaining('there is no check "no-500"; did you mean no-5xx?'),
    });
    expect(proxy.seen).toEqual([]);
  } finally {
    await proxy.close();
  }
});

it("sends none of a protocol phase's requests when its checks are left out", async () => {
  const proxy = await startProxy(t.url);
  try {
    const token = await t.token('phase-selection');
    const args = conformanceArgs({ baseUrl: proxy.url, tokens: [token], args: ['--requests', '0', '--seed', '7'] });
    // The header-fuzzing requests whose bytes a proxy can read (the control bytes are refused before it sees them).
    const fuzzed = () => proxy.seen.filter((request) => request.headers['x-conformance-fuzz'] !== undefined).length;
    expect((await conformance(args)).code).toBe(0);
    const sent = fuzzed();
    expect(sent).toBeGreaterThan(0);
    const excluded = await conformance([...args, '--exclude-checks', 'header-fuzzing']);
    expect(excluded.code, excluded.output).toBe(0);
    expect(fuzzed()).toBe(sent);
    expect(tally(excluded.output, 'getPlants', 'header-fuzzing')).toBeUndefined();
  } finally {
    await proxy.close();
  }
}, 120_000);
