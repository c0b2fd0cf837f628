// Stops `serve` when the process a user started it with ends or is interrupted. `pnpm start`, `npx pnpm start` and
// the node_modules/.bin/node shim (a shell script from the `node` npm package that runs node without `exec`) put
// launchers between the user and the server: a SIGTERM sent to one of them ends that launcher, and no launcher passes
// it on, so the server would be left running, reparented. A SIGINT sent to npx is passed on to its `sh -c`, which,
// like the shim, catches it and keeps waiting for its child: nothing reaches the server. So the server notes its
// launchers at start (Linux, from /proc: the ancestors that are the shim, a `sh -c` script or a package manager, up to
// the first that is none of these: a login shell, a supervisor, PID 1) and shuts down as on SIGTERM once one of them
// is gone, or as on SIGINT once a launcher shell wakes up: a shell waiting for its only child sleeps until a signal it
// catches (SIGINT) or its child's end, so a change in its count of voluntary context switches while it lives is the
// SIGINT. A stop and continue (Ctrl-Z, then fg) wakes the shells too: the server's own SIGCONT, heard before the next
// poll, says so, and the counts are read afresh for a few polls. Under systemd, pm2 or a container the parent is no launcher, and nothing is watched.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

const SHELLS = new Set(['sh', 'dash', 'bash', 'ash', 'zsh']);
const PACKAGE_MANAGERS = /^(pnpm|pnpx|npm|npx|yarn)(\.c?js)?$|^(npm|npx)-cli\.js$/;
const POLL_MS = 250;
/** Polls after a stop and continue whose wakes are not taken for a SIGINT. */
const SETTLE_POLLS = 4;

export interface ProcessInfo {
  pid: number;
  ppid: number;
  /** Zombie processes have ended: their parent has not reaped them yet. */
  state: string;
  /** Ticks since boot; with the pid, it tells a process from a later one that reuses its pid. */
  startTime: string;
  argv: string[];
}

/** /proc/<pid>/stat and cmdline, or undefined when the process is gone (or there is no /proc). */
export function readProcess(pid: number): ProcessInfo | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name in parentheses may hold spaces and parentheses: the fields start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    return { pid, ppid: Number(fields[1]), state: fields[0] ?? '', startTime: fields[19] ?? '', argv };
  } catch {
    return undefined;
  }
}

/** Whether a process is a launcher: the node shim, a shell running a `-c` script, or a package manager. */
export function isLauncher(argv: readonly string[]): boolean {
  // A process may rewrite its title (npm shows `npm exec ...` as one argument): its first word names it.
  const program = basename((argv[0] ?? '').split(' ')[0] ?? '');
  if (SHELLS.has(program)) return argv[1] === '-c' || argv.some((arg) => arg.endsWith('node_modules/.bin/node'));
  if (PACKAGE_MANAGERS.test(program)) return true;
  return program.startsWith('node') && PACKAGE_MANAGERS.test(basename(argv[1] ?? ''));
}

/** How often a process went to sleep by itself (/proc/<pid>/status); undefined when it is gone. */
export function readWakes(pid: number): string | undefined {
  try {
    return /^voluntary_ctxt_switches:\s*(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  } catch {
    return undefined;
  }
}

function isShell(argv: readonly string[]): boolean {
  return SHELLS.has(basename((argv[0] ?? '').split(' ')[0] ?? ''));
}

/** This process's launchers, nearest first. */
export function findLaunchers(pid = process.pid): ProcessInfo[] {
  const launchers: ProcessInfo[] = [];
  let current = readProcess(pid);
  while (current && current.ppid > 1) {
    const parent = readProcess(current.ppid);
    if (!parent || !isLauncher(parent.argv)) break;
    launchers.push(parent);
    current = parent;
  }
  return launchers;
}

function gone(launcher: ProcessInfo): boolean {
  const now = readProcess(launcher.pid);
  return !now || now.state === 'Z' || now.startTime !== launcher.startTime;
}

export type LauncherEvent = 'ended' | 'interrupted';

/**
 * Calls `stop` (once) when a launcher of this process ends, a launcher shell is interrupted, or this process is
 * reparented; returns a function that stops watching. The timer never keeps the process alive.
 */
export function watchLaunchers(
  stop: (launcher: ProcessInfo, event: LauncherEvent) => void,
  launchers = findLaunchers(),
): () => void {
  const [parent] = launchers;
  if (!parent) return () => {};
  const shells = launchers.filter((launcher) => isShell(launcher.argv));
  const readAll = () => new Map(shells.map((shell) => [shell.pid, readWakes(shell.pid)]));
  let wakes = readAll();
  let continued = false;
  let settling = 0;
  let woke: ProcessInfo | undefined;
  const onContinue = () => {
    continued = true;
  };
  process.on('SIGCONT', onContinue);
  const unwatch = () => {
    clearInterval(timer);
    process.off('SIGCONT', onContinue);
  };
  const timer = setInterval(() => {
    const ended = process.ppid !== parent.pid ? parent : launchers.find(gone);
    if (ended) {
      unwatch();
      stop(ended, 'ended');
      return;
    }
    if (continued) {
      continued = false;
      settling = SETTLE_POLLS;
    }
    if (settling > 0) {
      // The shells wake as they are continued, and hear their child continue, each when it is scheduled.
      settling -= 1;
      woke = undefined;
      wakes = readAll();
      return;
    }
    // A shell that woke is taken for interrupted one poll later, unless this process was continued meanwhile.
    if (woke) {
      unwatch();
      stop(woke, 'interrupted');
      return;
    }
    woke = shells.find((shell) => {
      const now = readWakes(shell.pid);
      return now !== undefined && now !== wakes.get(shell.pid);
    });
  }, POLL_MS);
  timer.unref();
  return unwatch;
}
