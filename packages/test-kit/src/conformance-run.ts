// Test support: `plant-store conformance` run in this process (its entry function, as the CLI calls it), with its
// output collected; the argument list of a run against one service; and a reading of its results table.
import { conformanceCommand } from '@plant-store/conformance';

export interface ConformanceRun {
  code: number;
  /** stdout and stderr, in order. */
  output: string;
}

export async function conformance(args: string[]): Promise<ConformanceRun> {
  const lines: string[] = [];
  const io = { stdout: (line: string) => lines.push(line), stderr: (line: string) => lines.push(line), env: {} };
  const code = await conformanceCommand(args, io);
  return { code, output: lines.join('\n') };
}

export interface ConformanceTarget {
  baseUrl: string;
  /** `--token`, and `--second-token` when a second principal is given. */
  tokens: readonly [string] | readonly [string, string];
  /** What follows them (`--requests`, `--seed`, ...). */
  args?: readonly string[];
}

/** The checker's command line for a run against `baseUrl` as the principals of `tokens`. */
export function conformanceArgs({ baseUrl, tokens: [token, second], args = [] }: ConformanceTarget): string[] {
  return [
    '--base-url',
    baseUrl,
    '--token',
    token,
    ...(second === undefined ? [] : ['--second-token', second]),
    ...args,
  ];
}

/** `conformance(conformanceArgs(target))`. */
export const runConformance = (target: ConformanceTarget): Promise<ConformanceRun> =>
  conformance(conformanceArgs(target));

/** Passed and failed counts of one row of the results table (operation and check), or undefined when absent. */
export function tally(
  output: string,
  operationId: string,
  check: string,
): { passed: number; failed: number } | undefined {
  const row = new RegExp(`^${operationId.replace(/[()]/g, '\\$&')}\\s+${check}\\s+(\\d+)\\s+(\\d+)\\s`, 'm').exec(
    `${output}\n`,
  );
  return row ? { passed: Number(row[1]), failed: Number(row[2]) } : undefined;
}
