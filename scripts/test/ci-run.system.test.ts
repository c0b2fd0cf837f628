// .ci/run's verdict, on a copy of it with stand-ins for the machine's services, pnpm and the other Node lines (the
// real suite is far too long to run here): each tier's wall time and the total are printed before the summaries; a
// PostgreSQL or Redis that does not start fails the run and is named in the total; a default run that stops before
// vitest is a failure, never summarised from the previous run's report; an unhandled error (vitest exits 1, its report
// all green) is a failure.
import { execFile } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';

const root = new URL('../..', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'ci-run-'));
const bin = join(dir, 'bin');
const repo = join(dir, 'repo');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(path: string, content: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
  chmodSync(path, 0o755);
}

mkdirSync(join(repo, '.ci'), { recursive: true });
mkdirSync(join(repo, 'scripts'));
copyFileSync(join(root, '.ci/run'), join(repo, '.ci/run'));
copyFileSync(join(root, 'scripts/test-summary.mjs'), join(repo, 'scripts/test-summary.mjs'));
file(join(repo, 'node_modules/.bin/node'), '#!/bin/sh\necho 24.0.0\n');
// The services answer as STUB_* says; pnpm's install passes, its check exits STUB_CHECK_EXIT, its test:vitest writes
// STUB_TEST_REPORT (if set) and exits STUB_TEST_EXIT; `npx -p node@N` gives a Node whose vitest writes
// STUB_LINES_REPORT and exits STUB_LINES_EXIT.
file(join(bin, 'pg_isready'), '#!/bin/sh\nexit "$STUB_PG_READY"\n');
file(join(bin, 'pg_ctlcluster'), '#!/bin/sh\necho "$STUB_PG_START" >&2\nexit 1\n');
file(join(bin, 'redis-cli'), '#!/bin/sh\nexit "$STUB_REDIS_READY"\n');
file(join(bin, 'redis-server'), '#!/bin/sh\necho "$STUB_REDIS_START" >&2\nexit 1\n');
file(join(bin, 'sleep'), '#!/bin/sh\n');
file(join(bin, 'chromium'), '#!/bin/sh\n');
// The machine's packages: .ci/run installs what it cannot find on its PATH (pgbouncer and haproxy live in /usr/sbin,
// beyond this PATH), and a real apt-get reading the package lists took seconds of CPU a run, past the test's 30 s
// under load.
file(join(bin, 'apt-get'), '#!/bin/sh\n');
file(
  join(bin, 'npx'),
  `#!/bin/bash
case "$*" in
  *" install") exit 0 ;;
  *" check") exit "\${STUB_CHECK_EXIT:-0}" ;;
  *" test:vitest") [ -z "\${STUB_TEST_REPORT:-}" ] || { mkdir -p .tmp && cp "$STUB_TEST_REPORT" .tmp/vitest.json; }
    exit "\${STUB_TEST_EXIT:-0}" ;;
  *"-p node@"*) echo "${join(bin, 'other-node')}" ;;
esac
`,
);
file(
  join(bin, 'other-node'),
  `#!/bin/bash
[ "$1" != -p ] || { echo 22.0.0; exit 0; }
for arg; do case "$arg" in --outputFile.json=*) cp "$STUB_LINES_REPORT" "\${arg#*=}" ;; esac; done
exit "\${STUB_LINES_EXIT:-0}"
`,
);

/** A vitest JSON report of one file with these tests. */
function report(name: string, tests: ('passed' | 'failed')[]): string {
  const path = join(dir, `${name}.json`);
  const failed = tests.includes('failed');
  writeFileSync(
    path,
    JSON.stringify({
      success: !failed,
      numPassedTests: tests.filter((status) => status === 'passed').length,
      numFailedTests: tests.filter((status) => status === 'failed').length,
      numPendingTests: 0,
      numTodoTests: 0,
      testResults: [
        {
          name: join(repo, `${name}.test.ts`),
          status: failed ? 'failed' : 'passed',
          message: '',
          assertionResults: tests.map((status, i) => ({ fullName: `test ${i + 1}`, status, failureMessages: [] })),
        },
      ],
    }),
  );
  return path;
}

const green = { STUB_TEST_REPORT: report('default', ['passed']), STUB_LINES_REPORT: report('lines', ['passed']) };

function ciRun(env: Record<string, string>): Promise<{ code: number; lines: string[] }> {
  const path = `${bin}:${dirname(process.execPath)}:/usr/bin:/bin`;
  return new Promise((resolve) => {
    execFile(
      'bash',
      [join(repo, '.ci/run')],
      { env: { PATH: path, HOME: dir, STUB_PG_READY: '0', STUB_REDIS_READY: '0', ...env } },
      (error, stdout) => {
        resolve({ code: error ? Number(error.code) : 0, lines: stdout.trimEnd().split('\n') });
      },
    );
  });
}

beforeEach(() => rmSync(join(repo, '.tmp'), { recursive: true, force: true }));

describe('.ci/run', () => {
  it('passes, one line per runtime and the total last, when everything does', async () => {
    const { code, lines } = await ciRun(green);
    expect(lines.slice(-4)).toEqual([
      'node 24.0.0: 1 passed, 0 failed, 0 skipped',
      'node 22.0.0: 1 passed, 0 failed, 0 skipped',
      'node 22.0.0: 1 passed, 0 failed, 0 skipped',
      '3 passed, 0 failed, 0 skipped',
    ]);
    expect(code).toBe(0);
  });

  it("prints each tier's wall time and the whole run's before the summaries", async () => {
    const { lines } = await ciRun(green);
    expect(lines.slice(-10, -4)).toEqual([
      expect.stringMatching(/^time: install \d+ s$/),
      expect.stringMatching(/^time: checks \(gen:check, contract:check, build, typecheck, lint\) \d+ s$/),
      expect.stringMatching(/^time: vitest, default Node \d+ s$/),
      expect.stringMatching(/^time: vitest, Node 22 \d+ s$/),
      expect.stringMatching(/^time: vitest, Node 26 \d+ s$/),
      expect.stringMatching(/^time: total \d+ s$/),
    ]);
  });

  it('fails, naming why, when PostgreSQL does not start', async () => {
    const url = 'postgres://postgres@127.0.0.1:1/test';
    const { code, lines } = await ciRun({
      ...green,
      PLANT_STORE_TEST_POSTGRES_URL: url,
      STUB_PG_READY: '2',
      STUB_PG_START: 'Error: could not bind\nport in use',
    });
    expect(lines.filter((line) => line.startsWith('failed: '))).toEqual([
      `failed: PostgreSQL is not accepting connections at ${url} (starting the cluster: Error: could not bind port in use)`,
    ]);
    expect(lines.at(-1)).toBe('3 passed, 1 failed, 0 skipped');
    expect(code).toBe(1);
  });

  it('fails, naming why, when Redis does not start', async () => {
    const { code, lines } = await ciRun({ ...green, STUB_REDIS_READY: '1', STUB_REDIS_START: 'Address in use' });
    expect(lines.filter((line) => line.startsWith('failed: '))).toEqual([
      'failed: Redis is not answering at 127.0.0.1:6379 (starting it: Address in use)',
    ]);
    expect(lines.at(-1)).toBe('3 passed, 1 failed, 0 skipped');
    expect(code).toBe(1);
  });

  it('never summarises the previous run: a default run that stops before vitest is a failure', async () => {
    mkdirSync(join(repo, '.tmp'));
    copyFileSync(report('previous', Array(50).fill('passed')), join(repo, '.tmp/vitest.json'));
    // The checks fail, so vitest (which would write a green report) never runs, and is not timed.
    const { code, lines } = await ciRun({ ...green, STUB_CHECK_EXIT: '1' });
    expect(existsSync(join(repo, '.tmp/vitest.json'))).toBe(false);
    expect(lines.filter((line) => line.startsWith('time: vitest, default'))).toEqual([]);
    expect(lines.filter((line) => line.startsWith('failed: '))).toEqual([
      expect.stringMatching(/^failed: \.tmp\/vitest\.json \(no vitest report: the run stopped before vitest wrote one/),
    ]);
    expect(lines.at(-1)).toBe('2 passed, 1 failed, 0 skipped');
    expect(code).toBe(1);
  });

  it('counts a run whose report is green but whose vitest exited 1 (an unhandled error) as failed', async () => {
    const { code, lines } = await ciRun({ ...green, STUB_LINES_EXIT: '1' });
    expect(lines.filter((line) => line.startsWith('failed: '))).toHaveLength(2);
    expect(lines.at(-1)).toBe('3 passed, 2 failed, 0 skipped');
    expect(code).toBe(1);
  });
});
