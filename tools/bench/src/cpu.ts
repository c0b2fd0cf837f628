// A process's CPU time from /proc (user + system, every thread: GC helpers and the SQLite and libuv threads count
// too), so a run can say what each request cost the server in CPU, a figure far less shaken by a shared machine than
// requests per second.
import { readFileSync } from 'node:fs';

/** Clock ticks per second of /proc/<pid>/stat (USER_HZ; 100 on Linux everywhere). */
const TICKS_PER_SECOND = 100;

/** CPU seconds used so far by `pid`, or NaN when it cannot be read. */
export function cpuSeconds(pid: number): number {
  try {
    // The command name (field 2) may hold spaces: count fields from after its closing parenthesis.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of the whole line, 12 and 13 after the name.
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return Number.NaN;
  }
}
