// Test support, vitest's globalSetup of every project (vitest.config.ts): marks this run (RUN_MARK, a fresh id in the environment every worker and every
// process they start inherits), and at the run's end finds the marked processes still running (servers, PgBouncer,
// browsers, `npx pnpm start` chains, whoever started them and however their test ended), kills them and fails the run
// naming them. Several projects share this setup; it marks and checks once per run.
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { kill, RUN_MARK } from './process-guard.js';

/** A process still running with `run`'s mark, as `pid command line`. */
export interface Survivor {
  pid: number;
  command: string;
}

/**
 * The processes whose environment carries `RUN_MARK=run`, but for `exclude` and its own children (vitest and its fork
 * workers, which carry the mark themselves). Zombies are not running: their environment reads empty.
 */
export function survivorsOf(run: string, exclude = process.pid): Survivor[] {
  const mark = `${RUN_MARK}=${run}`;
  const found: Survivor[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === exclude) continue;
    try {
      if (!readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(mark)) continue;
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (parent === exclude) continue;
      const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
      found.push({ pid, command: command.length > 200 ? `${command.slice(0, 200)}...` : command });
    } catch {
      // Ended while being read, or not ours to read.
    }
  }
  return found;
}

const state = globalThis as { plantStoreRunMarked?: boolean };

export default function setup(): (() => void) | undefined {
  if (state.plantStoreRunMarked) return undefined;
  state.plantStoreRunMarked = true;
  // Always a fresh id: a run started by a test (a nested vitest) checks its own processes, not its parent's.
  const run = randomUUID();
  process.env[RUN_MARK] = run;
  return () => {
    const survivors = survivorsOf(run);
    if (survivors.length === 0) return;
    for (const { pid } of survivors) kill(pid, false);
    console.error(
      `\n${survivors.length} process(es) started by this test run outlived it (now killed); every process a test ` +
        `starts must end however the test ends:\n${survivors.map(({ pid, command }) => `  ${pid} ${command}`).join('\n')}`,
    );
    process.exitCode = 1;
  };
}
