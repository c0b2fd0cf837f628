// The `plant-store` command: serve (default), migrate, token create/list/revoke and webhook subscriptions, one module
// per command; this dispatcher picks the module. bin/plant-store.js calls main(). Bad arguments and bad
// configuration exit with code 2 and a message that says what to fix.
import { ConfigError, loadConfig } from '../config.js';
import { LostDatabaseError } from '../store/sqlite/file-guard.js';
import { type Command, formatUsage, type Io, processIo, type StandaloneCommand, UsageError } from './command.js';
import { conformanceCommand } from './conformance.js';
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
  conformanceCommand,
];

const USAGE = `Usage: plant-store <command> [options]

Commands:
${formatUsage(COMMANDS.flatMap((command) => command.usage))}

Configuration comes from the environment (PORT, HOST, DATABASE_URL, ...): see the README.`;

/** Runs the command line `argv` (without node and the script); resolves to the exit code, or -1 while serving. */
export async function main(argv: string[], io: Io = processIo): Promise<number> {
  const [name = 'serve', ...args] = argv;
  const command = COMMANDS.find((candidate) => candidate.name === name);
  if (command && 'runStandalone' in command) return command.runStandalone(args, io);
  try {
    if (['help', '--help', '-h'].includes(name) || args.includes('--help') || args.includes('-h')) {
      io.stdout(USAGE);
      return 0;
    }
    const config = loadConfig(io.env);
    if (!command || 'runStandalone' in command) throw new UsageError(`unknown command "${name}"`);
    return await command.run(args, { config, io });
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`plant-store: ${error.message}\n\n${USAGE}`);
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
    throw error;
  }
}
