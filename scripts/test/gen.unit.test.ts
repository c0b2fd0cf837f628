// `pnpm gen`'s order and its guidance: the contract, the core, the checker and the server are type-checked after
// generation and before any build, the type check stops the run, and its last line names the first file to fix.
import { describe, expect, it } from 'vitest';
import { firstFault, GEN_STEPS, gen, type Run, type Step, TYPE_CHECKED, typeErrors } from '../gen.ts';

// tsc -b --pretty false after an operation was added to the contract and its handler not yet written.
const TSC_OUTPUT = [
  "packages/core/src/handlers/index.ts(14,14): error TS2741: Property 'updatePlant' is missing in type '{ createPlant: Handler; }' but required in type 'Handlers'.",
  "packages/core/src/handlers/index.ts(30,3): error TS2353: Object literal may only specify known properties, and 'getPlant' does not exist in type 'X'.",
  "  Types of property 'x' are incompatible.",
  "packages/core/src/store/plant-store.ts(8,1): error TS2304: Cannot find name 'Missing'.",
  '',
].join('\n');

/** Runs no command: records the steps asked for and fails the one named `failing`. */
function recording(failing?: string, output = '') {
  const asked: string[] = [];
  const run: Run = (step: Step) => {
    asked.push(step.name);
    return step.name === failing ? { ok: false, output } : { ok: true, output: '' };
  };
  return { asked, run };
}

describe('the steps of pnpm gen', () => {
  it('generate, type-check, build, then write the size statement, in that order', () => {
    const { asked, run } = recording();
    expect(gen(run, () => {})).toBe(true);
    expect(asked).toEqual(['generate', 'type-check', 'build', 'size']);
  });

  it('type-check the contract and the core first, then the checker and the server, before the SDK', () => {
    expect(TYPE_CHECKED.slice(0, 2)).toEqual(['packages/contract', 'packages/core']);
    expect(TYPE_CHECKED.indexOf('packages/server')).toBeLessThan(TYPE_CHECKED.indexOf('packages/sdk'));
    const check = GEN_STEPS.find((step) => step.name === 'type-check')!;
    expect(check.command.slice(1, 5)).toEqual(['-b', '--pretty', 'false', '--stopBuildOnErrors']);
    expect(check.command.slice(5)).toEqual(TYPE_CHECKED);
  });

  it('stop at a failed type check, build nothing, and name the first file to fix', () => {
    const { asked, run } = recording('type-check', TSC_OUTPUT);
    const lines: string[] = [];
    expect(gen(run, (line) => lines.push(line))).toBe(false);
    expect(asked).toEqual(['generate', 'type-check']);
    expect(lines[0]).toBe(TSC_OUTPUT.trimEnd());
    expect(lines.at(-1)).toMatch(
      /^gen: fix packages\/core\/src\/handlers\/index\.ts:14 first \(TS2741: Property 'updatePlant' is missing.*\); 3 type errors in 2 files,/,
    );
  });

  it('stop at a failed generation before the type check', () => {
    const { asked, run } = recording('generate');
    const lines: string[] = [];
    expect(gen(run, (line) => lines.push(line))).toBe(false);
    expect(asked).toEqual(['generate']);
    expect(lines).toEqual(['gen: the generate step failed; see above']);
  });
});

describe("reading tsc's output", () => {
  it('finds each error with its file, line and code, and not the lines that continue a message', () => {
    expect(typeErrors(TSC_OUTPUT).map(({ file, line, code }) => `${file}:${line} ${code}`)).toEqual([
      'packages/core/src/handlers/index.ts:14 TS2741',
      'packages/core/src/handlers/index.ts:30 TS2353',
      'packages/core/src/store/plant-store.ts:8 TS2304',
    ]);
  });

  it('says the check failed without naming a file where no error has one (a missing tsconfig)', () => {
    expect(firstFault("error TS5083: Cannot read file 'packages/nope/tsconfig.json'.\n")).toBe(
      'gen: the type check failed (its output is above); nothing was built',
    );
  });
});
