// The `plant-store` command: serve (default), migrate, token create/list/revoke and webhook subscriptions, one module
// per command; this dispatcher picks the module. bin/plant-store.js calls main(). Bad arguments and bad
// configuration exit with code 2 and one line that says what to fix, then where the command's usage is.
import { readFileSync } from 'node:fs';
import { didYouMean } from '@plant-store/core';
import { ConfigError, loadConfig } from '../config.js';
import { LostDatabaseError } from '../store/sqlite/file-guard.js';
import { StoreUnavailableError } from '../store/store.js';
import {
  type Command,
  contractVersion,
  formatUsage,
  type Io,
  processIo,
  type StandaloneCommand,
  type UsageEntry,
  UsageError,
} from './command.js';
import { conformanceCommand } from './conformance.js';
import { exportCommand } from './export.js';
import { failureReason } from './failure-reason.js';
import { importCommand } from './import.js';
import { migrateCommand } from './migrate.js';
import { serveCommand } from './serve.js';
import { tokenCommand } from './token.js';
import { webhookCommand } from './webhook.js';

export type { Io } from './command.js';

/** Every command, in the order the usage lists them; a new command is one module and one line here. */
const COMMANDS: (Command | StandaloneCommand)[] = [
  serveCommand,
  migrateCommand,
  tokenCommand,
  webhookCommand,
  exportCommand,
  importCommand,
  conformanceCommand,
];

const ENTRIES = COMMANDS.flatMap((command) => command.usage);
const ENVIRONMENT =
  'Configuration comes from the environment (PORT, HOST, DATABASE_URL, ...): see docs/configuration.md.';

const USAGE = `Usage: plant-store <command> [options]

Commands:
${formatUsage(ENTRIES)}

${ENVIRONMENT}`;

/** The words of `argv` that name a command or subcommand in the usage: ["token", "create"] for `token create -x`. */
function commandWords(argv: string[]): string[] {
  const words: string[] = [];
  for (const word of argv) {
    if (word.startsWith('-')) break;
    const candidate = [...words, word].join(' ');
    if (!ENTRIES.some(({ synopsis }) => synopsis === candidate || synopsis.startsWith(`${candidate} `))) break;
    words.push(word);
  }
  return words;
}

/** `plant-store <words> --help`: the entries under those words with their options, or the whole usage. */
function helpFor(words: string[]): string {
  const prefix = words.join(' ');
  const entries = ENTRIES.filter(({ synopsis }) => synopsis === prefix || synopsis.startsWith(`${prefix} `));
  if (words.length === 0 || entries.length === 0) return USAGE;
  const [only] = entries;
  if (entries.length === 1 && only) return formatEntry(only);
  return `Usage: plant-store ${prefix} <command> [options]\n\nCommands:\n${formatUsage(entries)}\n\n${ENVIRONMENT}`;
}

function formatEntry({ synopsis, description, options = [], notes = [] }: UsageEntry): string {
  return [
    `Usage: plant-store ${synopsis}`,
    description.join('\n'),
    ...(options.length === 0 ? [] : [`Options:\n${options.map((line) => `  ${line}`).join('\n')}`]),
    ...(notes.length === 0 ? [] : [notes.join('\n')]),
    ENVIRONMENT,
  ].join('\n\n');
}

/**
 * The service's version, from its package.json (the same file from src/ and from dist/), and the contract version it
 * serves: `info.version` of the openapi.yaml it reads at run time, the one /openapi.json shows.
 */
function version(): string {
  const file = new URL('../../package.json', import.meta.url);
  const service = (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
  return `plant-store ${service} (contract ${contractVersion()})`;
}

/** Runs the command line `argv` (without node and the script); resolves to the exit code, or -1 while serving. */
export async function main(argv: string[], io: Io = processIo): Promise<number> {
  const [name = 'serve', ...args] = argv;
  const help = `see \`plant-store ${[...commandWords(argv), '--help'].join(' ')}\``;
  const command = COMMANDS.find((candidate) => candidate.name === name);
  if (command && 'runStandalone' in command) return command.runStandalone(args, io);
  try {
    if (['--version', '-v', 'version'].includes(name)) {
      io.stdout(version());
      return 0;
    }
    if (['help', '--help', '-h'].includes(name) || args.includes('--help') || args.includes('-h')) {
      io.stdout(name === 'help' ? helpFor(commandWords(args)) : helpFor(commandWords(argv)));
      return 0;
    }
    const config = loadConfig(io.env);
    if (!command || 'runStandalone' in command) {
      throw new UsageError(
        `unknown command "${name}"${didYouMean(name, [...COMMANDS.map((c) => c.name), 'help', '--help', '--version'])}`,
      );
    }
    return await command.run(args, { config, io });
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`plant-store: ${error.message}\n${help}`);
      return 2;
    }
    if (error instanceof ConfigError) {
      io.stderr(`plant-store: configuration error: ${error.message}`);
      return 2;
    }
    if (error instanceof LostDatabaseError) {
      io.stderr(`plant-store: ${error.message}`);
      return 2;
    }
    if (error instanceof StoreUnavailableError) {
      io.stderr(`plant-store: ${failureReason(error)}`);
      return 1;
    }
    throw error;
  }
}
