// Test support: every process the tests start is ended however the test ends. Each carries this run's mark in its
// environment (RUN_MARK, set by process-leaks.ts), and the ones started through the test-kit are killed
// when the worker that started them exits; what survives even a crashed worker is found by the mark at the run's end.

/** The environment variable that names the test run a process was started by. */
export const RUN_MARK = 'PLANT_STORE_TEST_RUN';

/** `env` with this run's mark, so a process started with an environment of its own is found too. */
export function marked(env: Record<string, string | undefined>): Record<string, string | undefined> {
  const run = process.env[RUN_MARK];
  return run === undefined ? env : { ...env, [RUN_MARK]: run };
}

const live = new Map<number, { group: boolean }>();

/** SIGKILLs the process (its whole group when `group`: it was started detached). */
export function kill(pid: number, group: boolean): void {
  try {
    process.kill(group ? -pid : pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

process.once('exit', () => {
  for (const [pid, { group }] of live) kill(pid, group);
});

/**
 * Kills `child` (its group when `group`) when this worker exits with it still running, and forgets it once it ended.
 * A test's own cleanup stays the first line: this is for the timeout, the failed assertion and the crash that skip it.
 */
export function endWithWorker(
  child: { pid?: number | undefined; once(event: 'exit', listener: () => void): unknown },
  group = false,
): void {
  const pid = child.pid;
  if (pid === undefined) return;
  live.set(pid, { group });
  child.once('exit', () => {
    // A group outlives its leader: it is still killed at exit, once more, in case its members linger.
    if (!group) live.delete(pid);
  });
}
