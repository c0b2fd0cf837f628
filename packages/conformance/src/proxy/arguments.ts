// The command line of `plant-store-conformance proxy`: what it takes, its defaults, and the usage errors (exit 2).
import { accessSync, constants, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { SERVED_CONTRACT_PATH } from '@plant-store/contract';
import { unknownOptionMessage } from '@plant-store/core';
import { MAX_ANSWER_BYTES } from '../http-client.js';

const GIB = 1024 * 1024 * 1024;

/** Room for 16 answers at the largest size checked, at once. */
const DEFAULT_COPY_BYTES = 16 * MAX_ANSWER_BYTES;

/** The proxy's --help text, for the command as typed (`plant-store conformance` or `plant-store-conformance`). */
export const proxyUsage = (
  command: string,
) => `Usage: ${command} proxy --upstream URL --port P [--report FILE] [options]

Forwards every request to the upstream deployment and checks every request and every answer against openapi.yaml,
so that a frontend's end-to-end suite can run through it. Bodies pass byte for byte (ids beyond 2^53 stay exact);
copies of them are checked. On Ctrl-C (SIGINT) or SIGTERM it prints a summary, writes the report and exits: 0 when
no violation was seen, 1 when one was, 2 on a usage error.

Options:
  --upstream URL        the deployment to forward to, e.g. http://localhost:3000
  --port P              the port to listen on (0: any free port; the address is printed)
  --host H              the address to listen on (default 127.0.0.1)
  --report FILE         write the report (JSON: {"violations": [{direction, operation, rule, sample}], ...}) to FILE
  --timeout S           longest the upstream may stay silent, before and within an answer (default 30); a request
                        it leaves unanswered gets 504
  --max-answer-bytes N  largest answer body checked (default ${MAX_ANSWER_BYTES}); a larger one is forwarded whole and
                        reported unchecked
  --max-copy-bytes N    bytes the copies of all bodies under way may hold together (default ${DEFAULT_COPY_BYTES}); a body
                        that finds them full is forwarded unchecked and counted in the summary
  --help                this text

Checked on each request: the path and method are the contract's, the query's names and values, the bearer token and
header parameters, the body (application/json, at most the contract's size, exact JSON, its fields). On each answer:
a declared status, no 5xx, the content type, the schema and no undeclared field, the Error shape on every error,
WWW-Authenticate on 401, Retry-After on 429 and 503, the headers the contract promises, and HEAD: no body, and the
status and headers of the same GET (the proxy sends that GET itself). CORS preflights and the contract the service
serves (GET ${SERVED_CONTRACT_PATH}) are forwarded unchecked.`;

export class ProxyUsageError extends Error {
  override name = 'ProxyUsageError';
}

export interface ProxyArguments {
  upstream: URL;
  port: number;
  host: string;
  report: string | undefined;
  timeoutMs: number;
  maxAnswerBytes: number;
  maxCopyBytes: number;
}

const OPTIONS = {
  upstream: { type: 'string' },
  port: { type: 'string' },
  host: { type: 'string' },
  report: { type: 'string' },
  timeout: { type: 'string' },
  'max-answer-bytes': { type: 'string' },
  'max-copy-bytes': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

function whole(name: string, text: string | undefined, min: number, max: number, fallback?: number): number {
  if (text === undefined && fallback !== undefined) return fallback;
  const value = Number(text);
  if (text === undefined || !/^\d+$/.test(text) || value < min || value > max) {
    throw new ProxyUsageError(
      `--${name} must be a whole number from ${min} to ${max}, not ${JSON.stringify(text ?? '')}`,
    );
  }
  return value;
}

/** Refuses a --report path that cannot be written (no such folder, a folder, no permission) before listening. */
function writable(path: string): string {
  const existing = statSync(path, { throwIfNoEntry: false });
  const folder = dirname(resolve(path));
  const why = existing?.isDirectory()
    ? 'it is a folder'
    : !existing && !statSync(folder, { throwIfNoEntry: false })?.isDirectory()
      ? `there is no folder ${folder}`
      : undefined;
  if (why === undefined) {
    try {
      accessSync(existing ? path : folder, constants.W_OK);
      return path;
    } catch (error) {
      throw new ProxyUsageError(
        `--report ${JSON.stringify(path)} cannot be written: ${(error as NodeJS.ErrnoException).code}`,
      );
    }
  }
  throw new ProxyUsageError(`--report ${JSON.stringify(path)} cannot be written: ${why}`);
}

/** The proxy's options from `argv` (after `proxy`); throws ProxyUsageError. */
export function parseProxyArguments(argv: string[]): ProxyArguments | 'help' {
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: false }).values;
  } catch (error) {
    throw new ProxyUsageError(unknownOptionMessage((error as Error).message, Object.keys(OPTIONS)));
  }
  if (values.help) return 'help';
  const text = (name: keyof typeof OPTIONS) => values[name] as string | undefined;
  const given = text('upstream');
  if (given === undefined) throw new ProxyUsageError('--upstream URL is required (the deployment to forward to)');
  let upstream: URL;
  try {
    upstream = new URL(given);
  } catch {
    throw new ProxyUsageError(`--upstream ${JSON.stringify(given)} is not a URL`);
  }
  if (upstream.protocol !== 'http:' && upstream.protocol !== 'https:') {
    throw new ProxyUsageError(`--upstream must be http:// or https://, not ${upstream.protocol}`);
  }
  if (upstream.search || upstream.hash || upstream.username) {
    throw new ProxyUsageError('--upstream takes no query, fragment or credentials');
  }
  const report = text('report');
  return {
    upstream,
    port: whole('port', text('port'), 0, 65_535),
    host: text('host') ?? '127.0.0.1',
    report: report === undefined ? undefined : writable(report),
    timeoutMs: whole('timeout', text('timeout'), 1, 3600, 30) * 1000,
    maxAnswerBytes: whole('max-answer-bytes', text('max-answer-bytes'), 1, GIB, MAX_ANSWER_BYTES),
    maxCopyBytes: whole('max-copy-bytes', text('max-copy-bytes'), 1, 16 * GIB, DEFAULT_COPY_BYTES),
  };
}
