// `plant-store export --output FILE`: one consistent snapshot of everything the database holds, written as an archive
// (store/archive/format.ts) while the service goes on serving; `import` brings it back, on either engine.
import { existsSync } from 'node:fs';
import { ArchiveWriter } from '../store/archive/format.js';
import { describeConfiguredDatabase } from '../store/describe-database.js';
import { archiveEngineOf, engineOf, sqliteFileOf } from '../store/open-store.js';
import { StoreUnavailableError } from '../store/store.js';
import { openOutput, progressLine } from './archive-files.js';
import { type Command, contractVersion, JSON_OPTION, parse, UsageError, withStore } from './command.js';

/** A failure of the output (the file system's or the pipe's), as opposed to one of the database. */
const isWriteFailure = (error: unknown) =>
  'syscall' in (error as object) || /^ERR_STREAM/.test(String((error as { code?: unknown }).code));

/** Why a write failed, for people: the usual errno codes in words. */
function writeFailure(error: unknown): string {
  const { code, message } = error as { code?: string; message?: string };
  if (code === 'ENOSPC') return 'no space left on the device (ENOSPC)';
  if (code === 'EPIPE' || code === 'ERR_STREAM_DESTROYED') return 'the reader closed the pipe (EPIPE)';
  if (code === 'EEXIST') return `${message} (a file of that name is being written by another export)`;
  if (code === 'ENOENT') return 'its folder does not exist (ENOENT)';
  return message ?? String(error);
}

export const exportCommand: Command = {
  name: 'export',
  usage: [
    {
      synopsis: 'export --output FILE [--json]',
      description: ['write a consistent snapshot of everything the database holds to an archive, while it serves'],
      options: [
        '--output FILE   the archive: a path (FILE.gz is compressed), or - for standard output',
        '--json          a summary as one JSON object (on standard error with --output -)',
      ],
      notes: [
        'The archive holds every token hash and webhook signing secret: it is created 0600; keep it as you keep',
        'the database. An archive of the same name is replaced only once the new one is complete.',
        'Format and restore: docs/cli.md (export and import) and docs/deployment.md (Backups and restores).',
      ],
    },
  ],
  async run(args, { config, io }) {
    const { values } = parse(args, { output: { type: 'string' }, ...JSON_OPTION });
    const output = values.output;
    if (typeof output !== 'string' || output === '')
      throw new UsageError('export needs --output FILE (or - for stdout)');
    const archive = archiveEngineOf(config.databaseUrl);
    if (!archive) {
      throw new UsageError(`${describeConfiguredDatabase(config)} keeps nothing another process can export`);
    }
    const file = sqliteFileOf(config.databaseUrl);
    if (file && !existsSync(file)) {
      io.stderr(`plant-store: export failed: there is no SQLite database at ${file} (check DATABASE_URL)`);
      return 1;
    }
    const engine = await archive;
    const started = performance.now();
    const summary = await withStore(config, async () => {
      const out = openOutput(output);
      try {
        const writer = new ArchiveWriter(out.sink, {
          contract: contractVersion(),
          engine: engineOf(config.databaseUrl)!,
          exportedAt: new Date().toISOString(),
        });
        let total: number | undefined;
        const progress = progressLine('Exported', () => total);
        await engine.snapshot(config.databaseUrl, config.databaseDirectUrl, async (snapshot) => {
          total = snapshot.total;
          for await (const batch of snapshot.batches()) {
            await writer.write(batch);
            progress.tick(writer.records);
          }
        });
        const sha256 = await writer.finish();
        await out.complete();
        progress.end();
        return { records: writer.records, counts: writer.counts, bytes: writer.bytes, sha256 };
      } catch (error) {
        out.abandon();
        throw error;
      }
    }).catch((error: unknown) => {
      if (error instanceof StoreUnavailableError) throw error;
      return error as Error;
    });
    if (summary instanceof Error) {
      const reason = isWriteFailure(summary)
        ? `could not write ${output}: ${writeFailure(summary)}`
        : `reading the database failed: ${summary.message}`;
      io.stderr(`plant-store: export failed: ${reason}; no archive was written`);
      return 1;
    }
    const seconds = Number(((performance.now() - started) / 1000).toFixed(3));
    const where = output === '-' ? 'standard output' : output;
    if (values.json === true) {
      const line = JSON.stringify({ output: where, engine: engineOf(config.databaseUrl), ...summary, seconds });
      if (output === '-') io.stderr(line);
      else io.stdout(line);
    } else {
      const kinds = Object.entries(summary.counts)
        .map(([kind, count]) => `${count} ${kind}`)
        .join(', ');
      io.stderr(
        `Exported ${summary.records} records (${kinds}) from ${describeConfiguredDatabase(config)} to ${where} ` +
          `in ${seconds} s; SHA-256 ${summary.sha256}.`,
      );
    }
    return 0;
  },
};
