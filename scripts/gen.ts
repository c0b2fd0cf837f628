// `pnpm gen`: regenerates the contract's generated files from openapi.yaml, then type-checks what they feed before
// anything is built, so a contract change that breaks the core or the server is reported in the file to fix, not
// later in the SDK's declaration bundle; then builds what is stale and rewrites the SDK README's size statement.
// Runs on Node's own type stripping (`node scripts/gen.ts`), so: erasable TypeScript only, node: imports only.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { root } from './stale-builds.ts';

/** What the generated files feed, upstream first: tsc -b checks them in this order and stops at the first failing. */
export const TYPE_CHECKED = [
  'packages/contract',
  'packages/core',
  'packages/conformance',
  'packages/server',
  'packages/sdk',
];

const bin = (name: string) => join(root, 'node_modules/.bin', name);

export interface Step {
  name: string;
  command: string[];
}

export const GEN_STEPS: Step[] = [
  { name: 'generate', command: [bin('tsx'), '--conditions=source', 'scripts/gen-types.ts'] },
  { name: 'type-check', command: [bin('tsc'), '-b', '--pretty', 'false', '--stopBuildOnErrors', ...TYPE_CHECKED] },
  { name: 'build', command: [process.execPath, 'scripts/build.ts'] },
  { name: 'size', command: [process.execPath, 'packages/sdk/scripts/size.mjs', '--write'] },
];

export interface TypeFault {
  file: string;
  line: number;
  code: string;
  message: string;
}

/** The type errors in tsc's `--pretty false` output, in the order it printed them (a message's own lines dropped). */
export function typeErrors(output: string): TypeFault[] {
  return [...output.matchAll(/^(.+?)\((\d+),\d+\): error (TS\d+): (.*)$/gm)].map(
    ([, file = '', line, code = '', message = '']) => ({
      file,
      line: Number(line),
      code,
      message,
    }),
  );
}

/** The line that tells what to fix first: the first error tsc printed, as upstream as the errors go. */
export function firstFault(output: string): string {
  const errors = typeErrors(output);
  const [first] = errors;
  if (!first) return 'gen: the type check failed (its output is above); nothing was built';
  const files = new Set(errors.map((error) => error.file)).size;
  return (
    `gen: fix ${first.file}:${first.line} first (${first.code}: ${first.message}); ` +
    `${errors.length} type error${errors.length === 1 ? '' : 's'} in ${files} file${files === 1 ? '' : 's'}, ` +
    'the projects after it unchecked and nothing built. The generated files are written: fix, then run pnpm gen again'
  );
}

/** Runs a step's command from the repository root; the type check's output is kept to be read, the others' shown. */
export type Run = (step: Step) => { ok: boolean; output: string };

/** Runs the steps in order and stops at the first that fails, saying what to do; true when every step passed. */
export function gen(run: Run, log: (line: string) => void, steps: Step[] = GEN_STEPS): boolean {
  for (const step of steps) {
    const { ok, output } = run(step);
    if (output) log(output.trimEnd());
    if (ok) continue;
    log(step.name === 'type-check' ? firstFault(output) : `gen: the ${step.name} step failed; see above`);
    return false;
  }
  return true;
}

const runFromRoot: Run = (step) => {
  const [command = '', ...args] = step.command;
  const capture = step.name === 'type-check';
  const result = spawnSync(command, args, {
    cwd: root,
    stdio: capture ? ['ignore', 'pipe', 'pipe'] : 'inherit',
    encoding: 'utf8',
  });
  return { ok: result.status === 0, output: capture ? `${result.stdout}${result.stderr}` : '' };
};

if (import.meta.main) process.exit(gen(runFromRoot, (line) => console.log(line)) ? 0 : 1);
