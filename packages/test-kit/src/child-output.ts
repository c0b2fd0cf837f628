// Test support: what a child process writes to stdout and stderr, together in order, and its exit code.
import type { ChildProcess } from 'node:child_process';

export interface ChildOutput {
  /** stdout and stderr so far, in the order they arrived. */
  output(): string;
  /** Resolves with the exit code (null when a signal ended it). */
  exited: Promise<number | null>;
}

/** Collects `child`'s output (spawned with stdout and stderr piped) from now on. */
export function collectOutput(child: ChildProcess): ChildOutput {
  let output = '';
  const append = (chunk: Buffer | string) => {
    output += chunk;
  };
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { output: () => output, exited };
}
