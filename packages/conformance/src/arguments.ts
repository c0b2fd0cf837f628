// The command line of `plant-store conformance`: what it takes, its defaults, and the usage errors (exit code 2).
import { randomInt } from 'node:crypto';
import { accessSync, constants, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { unknownOptionMessage } from '@plant-store/core';

/** The default budget: requests generated after the fixed checks (the README states what a run costs). */
export const DEFAULT_REQUESTS = 400;

export const CONFORMANCE_USAGE = `Usage: plant-store conformance --base-url URL [--token T] [options]
       plant-store conformance proxy --upstream URL --port P [--report FILE]   (a validating proxy: proxy --help)

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
  --junit FILE          also write the results as JUnit XML to FILE
  --read-only           send no writes (only GET and HEAD): for deployments where the tokens must not write
  --help                this text

Writes touch only ids in a random reserved block of 2^20 ids (from the seed) and are deleted again at the end, also
on Ctrl-C (press it twice to stop at once). Failures print a curl command (tokens as $PLANT_STORE_TOKEN, ...).`;

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
  junit: { type: 'string' },
  'read-only': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** Refuses a --junit path that cannot be written (no such folder, a folder, no permission) before the run starts. */
function writableFile(path: string): string {
  const problem = (why: string) =>
    new ConformanceUsageError(`--junit ${JSON.stringify(path)} cannot be written: ${why}`);
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
    junit: junit === undefined ? undefined : writableFile(junit),
    readOnly: values['read-only'] === true,
  };
}
