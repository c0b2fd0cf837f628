// `pnpm contract:check [document] [--base released.yaml]`: validates the contract (swagger-parser), lints it (Redocly
// plus the Error-body rule) and fails on changes that break clients of the released contract. Exit code 1 on any FAIL.
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import SwaggerParser from '@apidevtools/swagger-parser';
import { HTTP_METHODS } from '@plant-store/contract';
import { OPENAPI_PATH } from '@plant-store/contract/document';
import { parse } from 'yaml';
import { findBreakingChanges } from './breaking-changes.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const releases = join(root, 'contract-releases');
const ERROR_SCHEMA = '#/components/schemas/Error';

export interface CheckResult {
  name: string;
  problems: string[];
  notes: string[];
}

type Node = Record<string, unknown>;
type ApiDocument = Parameters<typeof SwaggerParser.dereference>[1];

/** The newest release under contract-releases/ (by version number): what clients in the field were built against. */
export function latestRelease(): string {
  const versions = readdirSync(releases)
    .filter((file) => /^\d+\.\d+\.\d+\.yaml$/.test(file))
    .map((file) => file.replace(/\.yaml$/, ''));
  const newest = versions.sort((x, y) => x.localeCompare(y, 'en', { numeric: true })).at(-1) ?? '1.0.0';
  return join(releases, `${newest}.yaml`);
}

function display(path: string): string {
  const shown = relative(process.cwd(), path);
  return shown.startsWith('..') ? path : shown;
}

function load(path: string): Node {
  const document = parse(readFileSync(path, 'utf8')) as unknown;
  if (!document || typeof document !== 'object') throw new Error(`${display(path)} is not a YAML or JSON object`);
  return document as Node;
}

// swagger-parser dereferences the object it is given in place: hand it a copy, never the caller's document.
async function dereference(path: string, document: Node): Promise<object> {
  return SwaggerParser.dereference(path, structuredClone(document) as ApiDocument, {});
}

async function validate(path: string, document: Node): Promise<CheckResult> {
  const result: CheckResult = { name: 'valid OpenAPI document (swagger-parser)', problems: [], notes: [] };
  try {
    await SwaggerParser.validate(path, structuredClone(document) as ApiDocument, {});
  } catch (error) {
    result.problems.push((error as Error).message);
  }
  return result;
}

interface RedoclyProblem {
  ruleId: string;
  severity: 'error' | 'warn';
  message: string;
  location?: { pointer?: string; start?: { line: number } }[];
}

async function redocly(path: string): Promise<{ problems: string[]; notes: string[] }> {
  // The CLI bundles its own openapi-core and exports no API, so it runs as a child process (about half a second).
  const cli = join(dirname(createRequire(import.meta.url).resolve('@redocly/cli/package.json')), 'bin/cli.js');
  const args = [cli, 'lint', path, '--config', join(root, 'redocly.yaml'), '--format=json'];
  const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };
  const { stdout, stderr } = await promisify(execFile)(process.execPath, args, { env, maxBuffer: 64 << 20 }).catch(
    (error: { stdout?: string; stderr?: string }) => ({ stdout: error.stdout ?? '', stderr: error.stderr ?? '' }),
  );
  let report: { problems: RedoclyProblem[] };
  try {
    report = JSON.parse(stdout.slice(stdout.indexOf('{')));
  } catch {
    return { problems: [`redocly lint did not report: ${stderr.trim() || stdout.trim()}`], notes: [] };
  }
  const lines = (severity: RedoclyProblem['severity']) =>
    report.problems
      .filter((problem) => problem.severity === severity)
      .map((problem) => {
        const at = problem.location?.[0];
        const where = at ? ` (line ${at.start?.line ?? '?'}, ${at.pointer ?? ''})` : '';
        return `${problem.ruleId}: ${problem.message}${where}`;
      });
  const problems = lines('error');
  // A misspelt rule in redocly.yaml is only a config warning, and would silently switch that check off.
  if (/Your config has \d+ (warning|error)/.test(stderr)) problems.push(`redocly.yaml has problems:\n${stderr.trim()}`);
  return { problems, notes: lines('warn').map((line) => `warning ${line}`) };
}

function follow(document: Node, node: unknown): Node | undefined {
  let current = node as Node | undefined;
  for (let hops = 0; typeof current?.$ref === 'string' && hops < 20; hops++) {
    const ref = current.$ref as string;
    if (!ref.startsWith('#/')) return undefined;
    current = ref
      .slice(2)
      .split('/')
      .map((token) => token.replaceAll('~1', '/').replaceAll('~0', '~'))
      .reduce<Node | undefined>((at, token) => at?.[token] as Node | undefined, document);
  }
  return current;
}

/** Failure responses (4xx, 5xx, default) must carry the shared Error body, so clients parse every failure one way. */
export function errorBodyProblems(document: Node): string[] {
  const problems: string[] = [];
  if (!follow(document, { $ref: ERROR_SCHEMA })) problems.push(`${ERROR_SCHEMA} is missing`);
  for (const [route, pathItem] of Object.entries((document.paths as Node | undefined) ?? {})) {
    const item = follow(document, pathItem) ?? {};
    for (const method of HTTP_METHODS) {
      const operation = item[method] as Node | undefined;
      if (!operation) continue;
      const name = `${method.toUpperCase()} ${route} (${String(operation.operationId ?? 'no operationId')})`;
      for (const [status, value] of Object.entries((operation.responses as Node | undefined) ?? {})) {
        if (!/^[45]/.test(status) && status !== 'default') continue;
        const content = follow(document, value)?.content as Record<string, Node> | undefined;
        if (!content || Object.keys(content).length === 0) {
          problems.push(`${name}: response ${status} has no body; failures answer with ${ERROR_SCHEMA}`);
        }
        for (const [type, media] of Object.entries(content ?? {})) {
          const schema = media.schema as Node | undefined;
          if (schema?.$ref !== ERROR_SCHEMA) {
            problems.push(`${name}: response ${status} (${type}) does not use ${ERROR_SCHEMA}`);
          }
        }
      }
    }
  }
  return problems;
}

async function lint(path: string, document: Node): Promise<CheckResult> {
  const { problems, notes } = await redocly(path);
  return {
    name: 'lint (Redocly rules in redocly.yaml, Error bodies on failures)',
    problems: [...problems, ...errorBodyProblems(document)],
    notes,
  };
}

async function breaking(path: string, document: Node, basePath: string): Promise<CheckResult> {
  const result: CheckResult = { name: `no breaking changes against ${display(basePath)}`, problems: [], notes: [] };
  let base: object;
  let next: object;
  try {
    base = await dereference(basePath, load(basePath));
  } catch (error) {
    result.problems.push(`cannot read the released contract: ${(error as Error).message}`);
    return result;
  }
  try {
    next = await dereference(path, document);
  } catch (error) {
    result.problems.push(`cannot compare, the document does not resolve: ${(error as Error).message}`);
    return result;
  }
  const found = findBreakingChanges(base, next);
  const accepted = acceptedBreaks(String((base as { info?: { version?: unknown } }).info?.version ?? '0.0.0'));
  for (const change of found) {
    const entry = accepted.get(change);
    if (entry) result.notes.push(`accepted since ${entry.since}: ${change}`);
    else result.problems.push(change);
  }
  for (const change of accepted.keys()) {
    if (!found.includes(change))
      result.problems.push(`accepted-breaks.yaml lists a change that is not made: ${change}`);
  }
  return result;
}

interface AcceptedBreak {
  change: string;
  since: string;
  reason: string;
}

/** The entries of contract-releases/accepted-breaks.yaml made after `baseVersion`, by the change they accept. */
function acceptedBreaks(baseVersion: string): Map<string, AcceptedBreak> {
  const path = join(releases, 'accepted-breaks.yaml');
  const entries = (parse(readFileSync(path, 'utf8')) as AcceptedBreak[] | null) ?? [];
  const newer = (version: string) => version.localeCompare(baseVersion, 'en', { numeric: true }) > 0;
  return new Map(entries.filter((entry) => newer(entry.since)).map((entry) => [entry.change, entry]));
}

/** All three checks on the document at `path`; a document that does not even parse fails all three. */
export async function checkContract(path: string, basePath: string = latestRelease()): Promise<CheckResult[]> {
  let document: Node;
  try {
    document = load(path);
  } catch (error) {
    const problems = [`cannot read ${display(path)}: ${(error as Error).message}`];
    return ['valid OpenAPI document', 'lint', 'no breaking changes'].map((name) => ({ name, problems, notes: [] }));
  }
  return Promise.all([validate(path, document), lint(path, document), breaking(path, document, basePath)]);
}

export function formatResults(results: CheckResult[]): string {
  return results
    .flatMap(({ name, problems, notes }) => [
      `${problems.length === 0 ? 'PASS' : 'FAIL'} ${name}`,
      ...problems.map((problem) => `  - ${problem.replaceAll('\n', '\n    ')}`),
      ...notes.map((note) => `  ~ ${note}`),
    ])
    .join('\n');
}

const USAGE = `usage: contract-check [document] [--base released.yaml]
  document  the OpenAPI document to check (default: openapi.yaml at the repository root)
  --base    the released contract to compare with (default: the newest file in contract-releases/)`;

async function main(argv: string[]): Promise<number> {
  // `pnpm contract:check file` runs in the repository root; INIT_CWD is where the user typed it.
  const here = process.env.INIT_CWD ?? process.cwd();
  let path: string | undefined;
  let basePath: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--help' || arg === '-h') {
      console.log(USAGE);
      return 0;
    }
    if (arg === '--base' || arg.startsWith('--base=')) {
      const value = arg === '--base' ? argv[++i] : arg.slice('--base='.length);
      if (!value) return usageError('--base needs a path');
      basePath = resolve(here, value);
    } else if (arg.startsWith('-') || path) return usageError(`unexpected argument ${arg}`);
    else path = resolve(here, arg);
  }
  const started = performance.now();
  const results = await checkContract(path ?? OPENAPI_PATH, basePath ?? latestRelease());
  console.log(formatResults(results));
  const failed = results.filter((result) => result.problems.length > 0).length;
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(
    failed
      ? `contract:check failed ${failed} of ${results.length} checks (${seconds} s)`
      : `contract:check passed (${seconds} s)`,
  );
  return failed ? 1 : 0;
}

function usageError(message: string): number {
  console.error(`${message}\n${USAGE}`);
  return 2;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  process.exitCode = await main(process.argv.slice(2));
}
