// `plant-store import --input FILE`: loads an archive `export` wrote (from either engine) into the empty database
// DATABASE_URL names, migrated first; all or nothing: one transaction, committed once the trailer's counts and
// checksum matched. A bad archive or a lost database exits 1 naming the line and the reason; nothing is changed.
import { existsSync } from 'node:fs';
import {
  ArchiveError,
  type ArchiveHeader,
  emptyCounts,
  NotEmptyError,
  type ReadRecord,
  readArchive,
} from '../store/archive/format.js';
import { describeConfiguredDatabase } from '../store/describe-database.js';
import { archiveEngineOf, engineOf } from '../store/open-store.js';
import { StoreUnavailableError } from '../store/store.js';
import { openInput, progressLine } from './archive-files.js';
import { type Command, JSON_OPTION, parse, UsageError, withStore } from './command.js';
import { failureReason } from './failure-reason.js';

export const importCommand: Command = {
  name: 'import',
  usage: [
    {
      synopsis: 'import --input FILE [--json]',
      description: ['load an archive written by `export` into the empty database DATABASE_URL names'],
      options: [
        '--input FILE   the archive (gzip or not), or - for standard input',
        '--json         a summary as one JSON object',
      ],
      notes: [
        "All or nothing: one transaction, committed only once the trailer's counts and SHA-256 match. A database",
        'that holds anything is refused, and so is a damaged archive, naming the line; nothing is changed.',
      ],
    },
  ],
  async run(args, { config, io }) {
    const { values } = parse(args, { input: { type: 'string' }, ...JSON_OPTION });
    const input = values.input;
    if (typeof input !== 'string' || input === '') throw new UsageError('import needs --input FILE (or - for stdin)');
    const archive = archiveEngineOf(config.databaseUrl);
    if (!archive) {
      throw new UsageError(`${describeConfiguredDatabase(config)} keeps nothing: import into SQLite or PostgreSQL`);
    }
    if (input !== '-' && !existsSync(input)) {
      io.stderr(`plant-store: import failed: there is no file ${input}`);
      return 1;
    }
    const engine = await archive;
    const started = performance.now();
    const target = describeConfiguredDatabase(config);
    const { stream, share } = openInput(input);
    let last = 0;
    let records = 0;
    const progress = progressLine('Imported', () => {
      const read = share();
      return read ? Math.round(records / read) : undefined;
    });
    const counts = emptyCounts();
    async function* counted(source: AsyncIterable<ArchiveHeader | ReadRecord[]>) {
      for await (const batch of source) {
        if (Array.isArray(batch)) {
          for (const { record } of batch) counts[record.kind]++;
          last = batch.at(-1)!.line;
          records += batch.length;
          progress.tick(records);
        }
        yield batch;
      }
    }
    try {
      await withStore(config, () =>
        engine.load(config.databaseUrl, config.databaseDirectUrl, counted(readArchive(stream))),
      );
    } catch (error) {
      stream.destroy();
      // A bad archive and a target that holds data say where themselves; a database that failed, where it was.
      const reason =
        error instanceof ArchiveError || error instanceof NotEmptyError
          ? error.message
          : `after line ${last}: ${error instanceof StoreUnavailableError ? failureReason(error) : (error as Error).message}`;
      io.stderr(`plant-store: import of ${input} refused: ${reason}; nothing was imported into ${target}`);
      return 1;
    }
    progress.end();
    const seconds = Number(((performance.now() - started) / 1000).toFixed(3));
    if (values.json === true) {
      io.stdout(JSON.stringify({ input, engine: engineOf(config.databaseUrl), records, counts, seconds }));
    } else {
      const kinds = Object.entries(counts)
        .map(([kind, count]) => `${count} ${kind}`)
        .join(', ');
      io.stderr(`Imported ${records} records (${kinds}) from ${input} into ${target} in ${seconds} s.`);
    }
    return 0;
  },
};
