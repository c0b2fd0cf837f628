// A process's CPU time from /proc (user + system, every thread: GC helpers and the SQLite and libuv threads count
// too), so a run can say what each request cost the server in CPU, a figure far less shaken by a shared machine than
// requests per second.
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc/<pid>/stat (USER_HZ; 100 on Linux everywhere). */
const TICKS_PER_SECOND = 100;

/** The parent and the CPU seconds (utime + stime) in a /proc/<pid>/stat line. */
function parseStat(stat: string): { ppid: number; cpuSeconds: number } {
  // The command name (field 2) may hold spaces: count fields from after its closing parenthesis. ppid, utime and
  // stime are fields 4, 14 and 15 of the whole line: 2, 12 and 13 after the name.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { ppid: Number(fields[1]), cpuSeconds: (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND };
}

/** CPU seconds used so far by `pid`, or NaN when it cannot be read. */
export function cpuSeconds(pid: number): number {
  try {
    return parseStat(readFileSync(`/proc/${pid}/stat`, 'utf8')).cpuSeconds;
  } catch {
    return Number.NaN;
  }
}

export interface ProcessCpu {
  pid: number;
  ppid: number;
  cpuSeconds: number;
}

/** The CPU seconds of `root` and every process below it (a primary and its workers); NaN when `root` is not there. */
export function sumTree(root: number, processes: ProcessCpu[]): number {
  const byPid = new Map(processes.map((p) => [p.pid, p]));
  if (!byPid.has(root)) return Number.NaN;
  let total = 0;
  const queue = [root];
  for (let pid = queue.pop(); pid !== undefined; pid = queue.pop()) {
    total += byPid.get(pid)!.cpuSeconds;
    for (const p of processes) if (p.ppid === pid) queue.push(p.pid);
  }
  return total;
}

/** Every process's parent and CPU seconds, from /proc (one that exits while being read is skipped). */
function processes(): ProcessCpu[] {
  const list: ProcessCpu[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      list.push({ pid: Number(entry), ...parseStat(readFileSync(`/proc/${entry}/stat`, 'utf8')) });
    } catch {
      // gone
    }
  }
  return list;
}

/** `root` and the pids of its live descendants (a primary and its workers). */
export function treePids(root: number): number[] {
  const list = processes();
  const pids: number[] = [];
  for (let queue = [root], pid = queue.pop(); pid !== undefined; pid = queue.pop()) {
    pids.push(pid);
    for (const p of list) if (p.ppid === pid) queue.push(p.pid);
  }
  return pids;
}

/**
 * CPU seconds used so far by `pid` and its live descendants: `serve --workers N`'s primary and its N workers (each a
 * process of its own, whose time /proc counts in the primary's only once it has exited and been reaped).
 */
export function treeCpuSeconds(pid: number): number {
  return sumTree(pid, processes());
}
