// The run's check for processes that outlive it (process-leaks.ts), on runs of its own (fixtures/process-leaks): a
// process a test left running, or a server whose worker crashed, fails the run naming it and is killed; a run that
// ends what it starts passes, its own workers not taken for leftovers. And test-kit's start of a server that never
// listens kills it rather than leaving it to the run's end.
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startServerProcess } from '@plant-store/test-kit/server-process';
import { waitFor } from '@plant-store/test-kit/wait';
import { describe, expect, it } from 'vitest';

const root = new URL('../../..', import.meta.url).pathname;
const config = join(root, 'packages/test-kit/test/fixtures/process-leaks/vitest.config.ts');

/** Runs the fixture file under its own vitest run; its exit code and output. */
async function runFixture(file: string): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(
      join(root, 'node_modules/.bin/vitest'),
      ['run', '--config', config],
      { cwd: root, env: { ...process.env, PROCESS_LEAKS_FIXTURE: file }, timeout: 120_000 },
    );
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, output: failed.stdout + failed.stderr };
  }
}

/** The pids of running processes whose command line holds `token`. */
function running(token: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(token)) pids.push(Number(entry));
    } catch {}
  }
  return pids;
}

describe('processes that outlive the test run', () => {
  it.each([
    ['leaves-a-process.fixture.ts', 'left-behind'],
    ['crashes-its-worker.fixture.ts', 'orphaned'],
  ])(
    '%s: the run fails naming the process, and kills it',
    async (file, token) => {
      const { code, output } = await runFixture(file);
      expect(code, output).toBe(1);
      expect(output).toMatch(/1 process\(es\) started by this test run outlived it \(now killed\)/);
      expect(output).toMatch(new RegExp(`\\n  \\d+ .*${token}`));
      await waitFor(`the ${token} process to be gone`, () => running(`// ${token}`).length === 0, { timeoutMs: 5_000 });
    },
    150_000,
  );

  it('a run that ends what it starts passes, its workers not counted', async () => {
    const { code, output } = await runFixture('ends-what-it-starts.fixture.ts');
    expect(code, output).toBe(0);
    expect(output).not.toContain('outlived it');
  }, 150_000);

  it('a server that never listens is killed when its start gives up', async () => {
    const token = `never-listens-${process.pid}-${Date.now()}`;
    await expect(
      startServerProcess({}, [], {
        command: [process.execPath, '-e', `setInterval(() => {}, 1000) // ${token}`],
        subcommand: [],
        startTimeoutMs: 500,
      }),
    ).rejects.toThrow(/did not start within 500 ms/);
    await waitFor('the process to be gone', () => running(token).length === 0, { timeoutMs: 5_000 });
  });
});
