// scripts/test-summary.mjs, the line CI reads, follows vitest's own verdict: a file that failed outside its tests (a
// beforeAll or afterAll that threw, a file that did not load), a missing report, `success: false`, a run that exited
// non-zero with nothing failed in its report (an unhandled error) and a failure found outside vitest all count as
// failed, never as skipped or passed. Small crafted reports first, then reports from a real vitest run.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const root = new URL('../..', import.meta.url).pathname;
const script = join(root, 'scripts/test-summary.mjs');
const fixtures = join(root, 'scripts/test/fixtures/failing-outside-tests');
const dir = mkdtempSync(join(tmpdir(), 'test-summary-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Status = 'passed' | 'failed' | 'skipped';
type FileResult = { name: string; status: Status; message?: string; tests: Status[] };

/** A vitest 4 JSON report (the fields the summary reads), its totals and `success` derived as vitest derives them. */
function report(files: FileResult[], overrides: Record<string, unknown> = {}) {
  const all = files.flatMap((file) => file.tests);
  return {
    numPassedTests: all.filter((status) => status === 'passed').length,
    numFailedTests: all.filter((status) => status === 'failed').length,
    numPendingTests: all.filter((status) => status === 'skipped').length,
    numTodoTests: 0,
    success: files.every((file) => file.status === 'passed'),
    testResults: files.map((file) => ({
      name: join(dir, file.name),
      status: file.status,
      message: file.message ?? '',
      assertionResults: file.tests.map((status, i) => ({
        fullName: `test ${i + 1}`,
        title: `test ${i + 1}`,
        status,
        failureMessages: status === 'failed' ? ['AssertionError: expected 1 to be 2'] : [],
      })),
    })),
    ...overrides,
  };
}

let written = 0;
function write(content: unknown): string {
  const path = join(dir, `report-${++written}.json`);
  writeFileSync(path, JSON.stringify(content));
  return path;
}

async function summary(...args: string[]): Promise<{ failed: string[]; total: string }> {
  const { stdout } = await promisify(execFile)(process.execPath, [script, ...args], { cwd: dir });
  const lines = stdout.trimEnd().split('\n');
  return { failed: lines.filter((line) => line.startsWith('failed: ')), total: lines.at(-1) ?? '' };
}

describe('crafted reports', () => {
  it('counts a file whose beforeAll failed as failed, and says its tests did not run', async () => {
    const path = write(
      report([
        { name: 'store.test.ts', status: 'failed', message: 'connect ECONNREFUSED', tests: Array(3).fill('skipped') },
      ]),
    );
    const { failed, total } = await summary(path);
    expect(failed).toEqual([
      'failed: store.test.ts (a hook failed: connect ECONNREFUSED; 3 of its 3 tests did not run, counted as skipped)',
    ]);
    expect(total).toBe('0 passed, 1 failed, 3 skipped');
  });

  it('counts a file whose afterAll failed after its tests passed', async () => {
    const path = write(report([{ name: 'a.test.ts', status: 'failed', message: 'teardown broke', tests: ['passed'] }]));
    const { failed, total } = await summary(path);
    expect(failed).toEqual(['failed: a.test.ts (a hook failed after its tests ran: teardown broke)']);
    expect(total).toBe('1 passed, 1 failed, 0 skipped');
  });

  it('counts a failed test and its file-level error apart', async () => {
    const path = write(
      report([{ name: 'a.test.ts', status: 'failed', message: 'teardown broke', tests: ['passed', 'failed'] }]),
    );
    const { failed, total } = await summary(path);
    expect(failed).toEqual([
      'failed: a.test.ts > test 2',
      'failed: a.test.ts (a hook failed after its tests ran: teardown broke)',
    ]);
    expect(total).toBe('1 passed, 2 failed, 0 skipped');
  });

  it('counts a file that failed with no message and no failed test (a describe-level hook)', async () => {
    const path = write(report([{ name: 'a.test.ts', status: 'failed', tests: ['passed', 'skipped'] }]));
    const { failed, total } = await summary(path);
    expect(failed).toEqual([
      "failed: a.test.ts (a hook failed: see vitest's log; 1 of its 2 tests did not run, counted as skipped)",
    ]);
    expect(total).toBe('1 passed, 1 failed, 1 skipped');
  });

  it('counts a file that did not load', async () => {
    const path = write(report([{ name: 'a.test.ts', status: 'failed', message: 'Cannot find module', tests: [] }]));
    expect(await summary(path)).toEqual({
      failed: ['failed: a.test.ts (did not load: Cannot find module)'],
      total: '0 passed, 1 failed, 0 skipped',
    });
  });

  it('counts at least one failure when the report says success: false and names none', async () => {
    const path = write(report([{ name: 'a.test.ts', status: 'passed', tests: ['passed'] }], { success: false }));
    const { failed, total } = await summary(path);
    expect(failed).toEqual([`failed: ${path} (vitest's verdict is failure, but its report names no failed test)`]);
    expect(total).toBe('1 passed, 1 failed, 0 skipped');
  });

  it('counts a run that exited non-zero with nothing failed in its report (an unhandled error)', async () => {
    const path = write(report([{ name: 'a.test.ts', status: 'passed', tests: ['passed'] }]));
    expect((await summary('--exit-code', '0', path)).total).toBe('1 passed, 0 failed, 0 skipped');
    const { failed, total } = await summary('--exit-code', '1', path);
    expect(failed).toEqual([
      `failed: ${path} (the run exited 1 but its report names no failure: an unhandled error? see its log)`,
    ]);
    expect(total).toBe('1 passed, 1 failed, 0 skipped');
  });

  it('counts a missing report as a failure, the default one included', async () => {
    const { failed, total } = await summary();
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatch(
      /^failed: \.tmp\/vitest\.json \(no vitest report: the run stopped before vitest wrote one/,
    );
    expect(total).toBe('0 passed, 1 failed, 0 skipped');
  });

  it('adds reports up and names each failure given with --failure first', async () => {
    const passing = write(report([{ name: 'a.test.ts', status: 'passed', tests: ['passed', 'passed'] }]));
    const failing = write(report([{ name: 'b.test.ts', status: 'failed', tests: ['failed', 'skipped'] }]));
    const { failed, total } = await summary(
      '--failure',
      'Redis is not answering',
      passing,
      '--exit-code',
      '1',
      failing,
    );
    expect(failed).toEqual(['failed: Redis is not answering', 'failed: b.test.ts > test 1']);
    expect(total).toBe('2 passed, 2 failed, 1 skipped');
  });
});

describe('reports from a real vitest run', () => {
  /** Runs the fixture suite's files named by `filter` on vitest; its exit code and the path of its JSON report. */
  async function vitest(name: string, filter: string[]): Promise<{ code: number; path: string }> {
    const path = join(dir, `${name}.json`);
    // The outer run's VITEST_* variables would make the inner vitest think it is one of its workers.
    const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('VITEST')));
    const args = [join(root, 'node_modules/vitest/vitest.mjs'), 'run', '--root', fixtures, '--reporter=json'];
    const result = await promisify(execFile)(process.execPath, [...args, `--outputFile.json=${path}`, ...filter], {
      cwd: fixtures,
      env,
    }).then(
      () => 0,
      (error: { code: number }) => error.code,
    );
    return { code: result, path };
  }

  it('counts hooks that failed and an unhandled error as failures', { timeout: 120_000 }, async () => {
    const [hooks, unhandled] = await Promise.all([
      vitest('hooks', ['before-all', 'after-all', 'describe-hook']),
      vitest('unhandled', ['unhandled-error']),
    ]);
    expect(hooks.code).toBe(1);
    const fromHooks = await summary('--exit-code', String(hooks.code), hooks.path);
    expect(fromHooks.failed.map((line) => line.replace(`${fixtures}/`, '')).sort()).toEqual([
      'failed: after-all.fixture.ts (a hook failed after its tests ran: teardown broke)',
      'failed: before-all.fixture.ts (a hook failed: setup broke; 2 of its 2 tests did not run, counted as skipped)',
      "failed: describe-hook.fixture.ts (a hook failed: see vitest's log; 1 of its 2 tests did not run, counted as skipped)",
    ]);
    expect(fromHooks.total).toBe('2 passed, 3 failed, 3 skipped');

    expect(unhandled.code).toBe(1);
    const fromUnhandled = await summary('--exit-code', String(unhandled.code), unhandled.path);
    expect(fromUnhandled.failed).toHaveLength(1);
    expect(fromUnhandled.total).toBe('2 passed, 1 failed, 0 skipped');
  });
});
