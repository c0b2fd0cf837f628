// Where a server's CPU went, from the V8 CPU profiles its processes wrote (`node --cpu-prof`): the workers stage's
// `--cpu-prof DIR` starts each `serve --workers N` with it (the primary and every worker write one at exit, warm-up
// and measured run included), one folder per start; this reads a folder's profiles (the event loops', not the
// helper threads') and sums each function's self time over them. Native work is charged to the JavaScript function that called it (a SQLite statement to better-sqlite3's
// `run`, `get` or `all`), the collector's to "(garbage collector)", and the idle loop is left out. Sampling costs the
// servers a little (one sample a millisecond by default), so a stage run with it says where the time went, not how
// much there was.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface SelfTime {
  /** The function's name and where it is defined (file:line), or V8's own name for a bucket ("(program)"). */
  name: string;
  ms: number;
}

export interface ProfileSummary {
  profiles: number;
  /** Sampled time over every profile, the idle loop left out. */
  totalMs: number;
  /** Self time by function, largest first. */
  functions: SelfTime[];
}

const IDLE = '(idle)';

/** A function's name as the summary shows it: name, then file and 1-based line where it has them. */
function nameOf({ functionName, url, lineNumber }: ProfileNode['callFrame']): string {
  const name = functionName || '(anonymous)';
  if (!url) return name;
  const file = url.replace(/^file:\/\//, '').replace(/^.*\/node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?/, '');
  return `${name} ${file.replace(/^.*\/(packages|tools)\//, '$1/')}:${lineNumber + 1}`;
}

/**
 * Whether a profile is a process's main thread's: Node names them CPU.<date>.<time>.<pid>.<thread>.<n>.cpuprofile, the
 * main thread 0. A worker thread's (the log's sync, the checkpointer) is left out: the profiler samples wall time, and
 * such a thread spends it blocked inside a JavaScript call (Atomics.wait, fdatasync), which it would count as work.
 */
export const isMainThread = (file: string) => file.endsWith('.cpuprofile') && file.split('.')[4] === '0';

/** Sums the self time of every function over the main threads' profiles in `dir`. */
export function summariseProfiles(dir: string): ProfileSummary {
  const byName = new Map<string, number>();
  let profiles = 0;
  for (const file of readdirSync(dir).filter(isMainThread)) {
    const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile;
    profiles++;
    const names = new Map(profile.nodes.map((node) => [node.id, nameOf(node.callFrame)]));
    // Each sample's time is the delta that follows it (the last sample has none).
    profile.samples.forEach((id, index) => {
      const us = profile.timeDeltas[index + 1] ?? 0;
      const name = names.get(id) ?? '(unknown)';
      byName.set(name, (byName.get(name) ?? 0) + us);
    });
  }
  byName.delete(IDLE);
  const functions = [...byName].map(([name, us]) => ({ name, ms: us / 1000 })).sort((a, b) => b.ms - a.ms);
  return { profiles, totalMs: functions.reduce((sum, entry) => sum + entry.ms, 0), functions };
}

/** The summary as text: the total, then the `top` largest self times with their share of it. */
export function showSummary(label: string, summary: ProfileSummary, top = 25): string {
  const lines = [`${label}: ${summary.profiles} profiles, ${summary.totalMs.toFixed(0)} ms sampled (idle left out)`];
  for (const { name, ms } of summary.functions.slice(0, top)) {
    lines.push(
      `  ${((100 * ms) / (summary.totalMs || 1)).toFixed(1).padStart(5)}%  ${ms.toFixed(0).padStart(7)} ms  ${name}`,
    );
  }
  return lines.join('\n');
}
