// `plant-store migrate`: applies pending migrations; the one command that creates a database on purpose, even where
// one was lost (store/sqlite/file-guard.ts).
import { existsSync } from 'node:fs';
import { describeConfiguredDatabase } from '../store/describe-database.js';
import { sqliteFileOf } from '../store/open-store.js';
import { type Command, parse, withStore } from './command.js';

export const migrateCommand: Command = {
  name: 'migrate',
  usage: [
    {
      synopsis: 'migrate',
      description: [
        'apply pending database migrations; the one command that creates a',
        'SQLite database where one was lost (the other commands refuse to)',
      ],
    },
  ],
  async run(args, { config, io }) {
    parse(args, {});
    const file = sqliteFileOf(config.databaseUrl);
    io.stderr(`Migrating ${describeConfiguredDatabase(config)}.`);
    if (file && !existsSync(file)) io.stderr(`Creating a new, empty database at ${file}.`);
    await withStore(
      config,
      async (_store, applied) =>
        io.stdout(applied.length === 0 ? 'Database is up to date.' : `Applied migrations ${applied.join(', ')}.`),
      { recreateLost: true },
    );
    return 0;
  },
};
