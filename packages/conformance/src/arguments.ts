// The command line of `plant-store conformance`: what it takes, its defaults, and the usage errors (exit code 2).
import { randomInt } from 'node:crypto';
import { accessSync, constants, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { didYouMean, unknownOptionMessage } from '@plant-store/core';
import { CHECKS, type CheckName } from './report.js';

/** The default budget: requests generated after the fixed checks (the README states what a run costs). */
export const DEFAULT_REQUESTS = 400;

/** How the command is typed where no other name is given: the server's subcommand. */
export const DEFAULT_COMMAND = 'plant-store conformance';

/** Each check name and what it promises, wrapped under the name, for --help. */
function checkList(): string[] {
  const width = Math.max(...Object.keys(CHECKS).map((name) => name.length)) + 4;
  return Object.entries(CHECKS).flatMap(([name, promise]) => {
    const lines: string[] = [];
    let line = `  ${name.padEnd(width - 2)}`;
    for (const word of promise.split(' ')) {
      if (line.length + word.length > 118 && line.trim() !== name) {
        lines.push(line.trimEnd());
        line = ' '.repeat(width);
      }
      line += `${word} `;
    }
    return [...lines, line.trimEnd()];
  });
}

/** The --help text, for the command as typed (`plant-store conformance` or `plant-store-conformance`). */
export function conformanceUsage(command = DEFAULT_COMMAND): string {
  return `Usage: ${command} --base-url URL [--token T] [options]
       ${command} proxy --upstream URL --port P [--report FILE]   (a validating proxy: proxy --help)

Checks a running deployment against openapi.yaml from outside: requests generated from the contract (valid and
invalid), every answer checked, and stateful checks (create, page through, delete) against a model. Needs only a URL
and tokens: no database, no configuration. Exit code 0: every check passed; 1: a check failed; 2: usage error.

Options:
  --base-url URL        where the API is served, e.g. https://plants.example.com
  --token T             a read,write token (default: $PLANT_STORE_TOKEN)
  --second-token T2     a read,write token of another principal, for the isolation checks
                        (default: $PLANT_STORE_SECOND_TOKEN)
  --read-token T3       a token with the read scope only, for the scope checks (default: $PLANT_STORE_READ_TOKEN)
  --requests N          generated requests after the fixed checks (default ${DEFAULT_REQUESTS})
  --duration S          generate requests for S seconds instead of a count
  --seed S              replay a run: the same seed sends the same requests (printed by every run)
  --checks A,B          judge only these checks (names below); the requests are the same
  --exclude-checks A,B  judge every check but these
  --junit FILE          also write the results as JUnit XML to FILE
  --report-json FILE    also write the results as one JSON document to FILE (checks, failures with their curl,
                        seed, the command that replays the run)
  --read-only           send no writes (only GET and HEAD): for deployments where the tokens must not write
  --help                this text

Checks (each failure names the one it broke, with what the contract promises and a curl that shows it):
${checkList().join('\n')}

Writes touch only ids in a random reserved block of 2^20 ids (from the seed), name their plants with the run's own
prefix, and are deleted again at the end, also on Ctrl-C (press it twice to stop at once). Failures print a curl
command (tokens as $PLANT_STORE_TOKEN, ...).`;
}

export class ConformanceUsageError extends Error {
  override name = 'ConformanceUsageError';
}

export interface ConformanceOptions {
  baseUrl: URL;
  token: string;
  secondToken: string | undefined;
  readToken: string | undefined;
  /** Generated requests; undefined when a duration is given. */
  requests: number | undefined;
  /** Seconds of generated requests, instead of a count. */
  durationS: number | undefined;
  seed: number;
  junit: string | undefined;
  reportJson: string | undefined;
  /** The checks whose verdicts count (--checks, less --exclude-checks); every check unless narrowed. */
  checks: ReadonlySet<CheckName>;
  readOnly: boolean;
}

function wholeNumber(name: string, text: string, min: number, max: number): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new ConformanceUsageError(`--${name} must be a whole number from ${min} to ${max}, not "${text}"`);
  }
  return value;
}

const OPTIONS = {
  'base-url': { type: 'string' },
  token: { type: 'string' },
  'second-token': { type: 'string' },
  'read-token': { type: 'string' },
  requests: { type: 'string' },
  duration: { type: 'string' },
  seed: { type: 'string' },
  checks: { type: 'string' },
  'exclude-checks': { type: 'string' },
  junit: { type: 'string' },
  'report-json': { type: 'string' },
  'read-only': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** Refuses a report path that cannot be written (no such folder, a folder, no permission) before the run starts. */
function writableFile(option: string, path: string): string {
  const problem = (why: string) =>
    new ConformanceUsageError(`--${option} ${JSON.stringify(path)} cannot be written: ${why}`);
  try {
    const existing = statSync(path, { throwIfNoEntry: false });
    if (existing?.isDirectory()) throw problem('it is a folder');
    const folder = dirname(path);
    if (!existing && !statSync(folder, { throwIfNoEntry: false })?.isDirectory()) {
      throw problem(`there is no folder ${folder}`);
    }
    accessSync(existing ? path : folder, constants.W_OK);
  } catch (error) {
    if (error instanceof ConformanceUsageError) throw error;
    throw problem((error as NodeJS.ErrnoException).code ?? (error as Error).message);
  }
  return path;
}

/** The check names of a --checks or --exclude-checks list; an unknown one is a usage error naming the nearest. */
function checkNames(option: string, text: string): CheckName[] {
  const names = text.split(',').map((name) => name.trim());
  for (const name of names) {
    if (!Object.hasOwn(CHECKS, name)) {
      const hint = didYouMean(name, Object.keys(CHECKS));
      throw new ConformanceUsageError(
        `--${option}: there is no check ${JSON.stringify(name)}${hint || ` (the checks: ${Object.keys(CHECKS).join(', ')})`}`,
      );
    }
  }
  return names as CheckName[];
}

/** The checks a run judges: those of --checks (every check unless given), less those of --exclude-checks. */
function selectedChecks(only: string | undefined, except: string | undefined): ReadonlySet<CheckName> {
  const chosen = new Set(only === undefined ? (Object.keys(CHECKS) as CheckName[]) : checkNames('checks', only));
  for (const name of except === undefined ? [] : checkNames('exclude-checks', except)) chosen.delete(name);
  if (chosen.size === 0) throw new ConformanceUsageError('--checks and --exclude-checks leave no check to judge');
  return chosen;
}

/** Options from `args` (after `conformance`) and the environment; throws ConformanceUsageError. */
export function parseConformanceArguments(
  args: string[],
  env: Record<string, string | undefined>,
): ConformanceOptions | 'help' {
  let values: Record<string, string | boolean | undefined>;
  try {
    const parsed = parseArgs({
      args,
      strict: true,
      allowPositionals: false,
      tokens: true,
      options: OPTIONS,
    });
    const seen = new Set<string>();
    for (const token of parsed.tokens ?? []) {
      if (token.kind !== 'option') continue;
      if (seen.has(token.name))
        throw new ConformanceUsageError(`--${token.name} is given more than once; give it once`);
      seen.add(token.name);
    }
    values = parsed.values;
  } catch (error) {
    if (error instanceof ConformanceUsageError) throw error;
    throw new ConformanceUsageError(unknownOptionMessage((error as Error).message, Object.keys(OPTIONS)));
  }
  if (values.help) return 'help';
  const text = (name: string) => (typeof values[name] === 'string' ? (values[name] as string) : undefined);
  const given = text('base-url');
  if (!given) throw new ConformanceUsageError('--base-url URL is required (where the API is served)');
  let baseUrl: URL;
  try {
    baseUrl = new URL(given);
  } catch {
    throw new ConformanceUsageError(`--base-url "${given}" is not a URL`);
  }
  if (baseUrl.protocol !== 'http:' && baseUrl.protocol !== 'https:') {
    throw new ConformanceUsageError(`--base-url must be http:// or https://, not ${baseUrl.protocol}`);
  }
  if (baseUrl.search || baseUrl.hash) throw new ConformanceUsageError('--base-url takes no query or fragment');
  const token = text('token') ?? env.PLANT_STORE_TOKEN;
  if (!token) throw new ConformanceUsageError('--token T (or $PLANT_STORE_TOKEN) is required');
  const secondToken = text('second-token') ?? (env.PLANT_STORE_SECOND_TOKEN || undefined);
  const readToken = text('read-token') ?? (env.PLANT_STORE_READ_TOKEN || undefined);
  for (const [name, value] of [
    ['token', token],
    ['second-token', secondToken],
    ['read-token', readToken],
  ] as const) {
    if (value !== undefined && !/^[\x21-\x7e]+$/.test(value)) {
      throw new ConformanceUsageError(`--${name} holds spaces or characters a bearer token cannot hold`);
    }
  }
  if (secondToken !== undefined && secondToken === token) {
    throw new ConformanceUsageError("--second-token must be another principal's token, not --token again");
  }
  const requestsText = text('requests');
  const durationText = text('duration');
  if (requestsText !== undefined && durationText !== undefined) {
    throw new ConformanceUsageError('give --requests or --duration, not both');
  }
  const seedText = text('seed');
  const junit = text('junit');
  const reportJson = text('report-json');
  return {
    baseUrl,
    token,
    secondToken,
    readToken,
    requests:
      durationText !== undefined
        ? undefined
        : requestsText === undefined
          ? DEFAULT_REQUESTS
          : wholeNumber('requests', requestsText, 0, 1_000_000),
    durationS: durationText === undefined ? undefined : wholeNumber('duration', durationText, 1, 86_400),
    seed: seedText === undefined ? randomInt(2 ** 31) : wholeNumber('seed', seedText, 0, 2 ** 31 - 1),
    junit: junit === undefined ? undefined : writableFile('junit', junit),
    reportJson: reportJson === undefined ? undefined : writableFile('report-json', reportJson),
    checks: selectedChecks(text('checks'), text('exclude-checks')),
    readOnly: values['read-only'] === true,
  };
}
