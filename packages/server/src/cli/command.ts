// What every `plant-store` command module shares: the Command shape the dispatcher (main.ts) runs, the output it
// writes to, strict option parsing, and opening the store for one piece of work.
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { readOpenApiDocument } from '@plant-store/contract/document';
import { didYouMean, unknownOptionMessage } from '@plant-store/core';
import type { Config } from '../config.js';
import { openStore } from '../store/open-store.js';
import type { Store } from '../store/store.js';

export interface Io {
  stdout: (line: string) => void;
  stderr: (line: string) => void;
  env: Record<string, string | undefined>;
}

export const processIo: Io = {
  stdout: (line) => process.stdout.write(`${line}\n`),
  stderr: (line) => process.stderr.write(`${line}\n`),
  env: process.env,
};

/** One line of the usage: what to type, and what it does (wrapped lines); `options` and `notes` only in its own
 * --help. */
export interface UsageEntry {
  synopsis: string;
  description: string[];
  options?: string[];
  notes?: string[];
}

/** A top-level command (`plant-store <name> ...`); main.ts lists them, in the order the usage shows them. */
export interface Command {
  name: string;
  usage: UsageEntry[];
  /** Resolves to the exit code, or -1 while the process keeps serving. */
  run(args: string[], context: { config: Config; io: Io }): Promise<number>;
}

/** A command that loads no configuration and opens no database (conformance: only a URL and tokens). */
export interface StandaloneCommand {
  name: string;
  usage: UsageEntry[];
  /** Parses its own arguments (its own --help too); resolves to the exit code. */
  runStandalone(args: string[], io: Io): Promise<number>;
}

/** Bad arguments: the dispatcher prints the message and exits with code 2. */
export class UsageError extends Error {}

const SYNOPSIS_WIDTH = 33;

export function formatUsage(entries: UsageEntry[]): string {
  const indent = ' '.repeat(SYNOPSIS_WIDTH + 2);
  const lines: string[] = [];
  for (const { synopsis, description } of entries) {
    if (synopsis.length < SYNOPSIS_WIDTH) {
      const [first = '', ...rest] = description;
      lines.push(`  ${synopsis.padEnd(SYNOPSIS_WIDTH)}${first}`, ...rest.map((line) => indent + line));
    } else {
      lines.push(`  ${synopsis}`, ...description.map((line) => indent + line));
    }
  }
  return lines.join('\n');
}

/** Opens and migrates the store, runs `work` on it, closes it; `work` also gets the versions migrating applied. */
export async function withStore<T>(
  config: Config,
  work: (store: Store, applied: number[]) => Promise<T>,
  { recreateLost = false } = {},
): Promise<T> {
  const store = await openStore(config.databaseUrl, {
    poolSize: 2,
    directUrl: config.databaseDirectUrl,
    recreateLost,
  });
  try {
    const applied = await store.migrate();
    return await work(store, applied);
  } finally {
    await store.close();
  }
}

/** Strict parseArgs: unknown options, a repeated option and extra positionals are usage errors. */
export function parse(args: string[], options: NonNullable<ParseArgsConfig['options']>, positionals = 0) {
  try {
    const parsed = parseArgs({ args, options, allowPositionals: positionals > 0, strict: true, tokens: true });
    // parseArgs keeps the last of a repeated option silently; each option here takes one value, given once.
    const seen = new Set<string>();
    for (const token of parsed.tokens ?? []) {
      if (token.kind !== 'option') continue;
      if (seen.has(token.name)) throw new UsageError(`--${token.name} is given more than once; give it once`);
      seen.add(token.name);
    }
    if (parsed.positionals.length > positionals) {
      throw new UsageError(`unexpected argument "${parsed.positionals[positionals]}"`);
    }
    return parsed;
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(argumentMessage(error as Error & { code?: string }, Object.keys(options)));
  }
}

/**
 * parseArgs's refusal in the words of the CLI's own ("unknown command \"serv\"; did you mean serve?"): lower case,
 * the name in double quotes, the nearest option when one is near; never Node's "Unknown option '--x'. To specify...".
 */
function argumentMessage(error: Error & { code?: string }, names: string[]): string {
  const quoted = /'([^']*)'/.exec(error.message)?.[1] ?? '';
  // An option's name as the message writes it: "--subject", or the long one of "-s, --subject <value>".
  const option = /--?[\w-]+(?= <value>|$)/.exec(quoted)?.[0] ?? quoted;
  switch (error.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return unknownOptionMessage(`Unknown option '${quoted}'`, names).replace(
        /^Unknown option '([^']*)'/,
        'unknown option "$1"',
      );
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return `unexpected argument "${quoted}"`;
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      if (/does not take an argument/.test(error.message)) return `${option} takes no value (give ${option} alone)`;
      // Missing, or followed by something that looks like another option ("--subject --bogus").
      return /ambiguous/.test(error.message)
        ? `${option} needs a value; one that starts with "-" is written ${option}=-VALUE`
        : `${option} needs a value (${option} VALUE)`;
    default:
      return error.message;
  }
}

/** The `--json` option of the list commands: their rows as one JSON array, for scripts. */
export const JSON_OPTION = { json: { type: 'boolean' } } as const;

/**
 * Prints a list: for people, a table in aligned columns under its header (`empty` alone when there are no rows); with
 * `--json`, `records` as one JSON array (`[]` when empty). Returns exit code 0.
 */
export function printList(
  io: Io,
  json: boolean,
  { header, rows, records, empty }: { header: string[]; rows: string[][]; records: object[]; empty: string },
): number {
  if (json) {
    io.stdout(JSON.stringify(records, null, 2));
    return 0;
  }
  if (rows.length === 0) {
    io.stdout(empty);
    return 0;
  }
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  for (const row of [header, ...rows]) {
    io.stdout(
      row
        .map((cell, column) => cell.padEnd(widths[column]!))
        .join('  ')
        .trimEnd(),
    );
  }
  return 0;
}

/** Runs `check`, turning what it throws (a bad subject, scope or duration) into a usage error. */
export function asUsage<T>(check: () => T): T {
  try {
    return check();
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** The actions of a command with several (`token create`, `webhook list`), by name, in the order the usage lists them. */
export type Actions = Record<string, (args: string[], config: Config, io: Io) => Promise<number>>;

/** Runs the action the first argument names with the rest; a missing or unknown one is a usage error naming them. */
export function runAction(command: string, actions: Actions, args: string[], config: Config, io: Io): Promise<number> {
  const [action, ...rest] = args;
  const run = action !== undefined && Object.hasOwn(actions, action) ? actions[action] : undefined;
  if (run) return run(rest, config, io);
  const names = Object.keys(actions);
  throw new UsageError(
    action
      ? `unknown ${command} command "${action}"${didYouMean(action, names)}`
      : `${command} needs a command: ${names.slice(0, -1).join(', ')} or ${names.at(-1)}`,
  );
}

/** The contract version the service serves: `info.version` of the openapi.yaml it reads at run time. */
export function contractVersion(): string {
  return (readOpenApiDocument().document as { info: { version: string } }).info.version;
}
