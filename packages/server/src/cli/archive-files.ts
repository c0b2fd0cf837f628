// Where `export` writes and `import` reads: a file (gzip when its name ends in .gz, or when its bytes say so on
// import) or `-` for standard output or input, and the progress line both draw on a terminal.
import {
  closeSync,
  createReadStream,
  createWriteStream,
  fsyncSync,
  openSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';

export interface ArchiveOutput {
  /** Where the archive's bytes go (the gzip stream in front of the file, where compressed). */
  sink: Writable;
  /** Waits until every byte is written (and, for a file, synced and moved into place). */
  complete(): Promise<void>;
  /** Removes what a failed export wrote (never a file that was there before). */
  abandon(): void;
}

/**
 * Opens the output. A regular file is written beside its final name (created 0600: the archive holds every token's
 * hash and every webhook signing secret) and renamed over it once complete, so an existing archive of that name is
 * replaced only by a whole one. Anything else that exists there (a device, a FIFO) is written in place.
 */
export function openOutput(path: string): ArchiveOutput {
  if (path === '-') {
    const sink = process.stdout;
    return {
      sink,
      complete: () =>
        new Promise((resolve, reject) => {
          if (sink.errored) reject(sink.errored);
          else sink.write('', (error) => (error ? reject(error) : resolve()));
        }),
      abandon: () => {},
    };
  }
  let special = false;
  try {
    special = !statSync(path).isFile();
  } catch {}
  const temporary = special ? path : join(dirname(path), `.${basename(path)}.${process.pid}.partial`);
  const file = createWriteStream(temporary, { flags: special ? 'w' : 'wx', mode: 0o600 });
  // Level 1: three to four times zlib's default speed, for most of its ratio on JSON Lines.
  const gzip = path.endsWith('.gz') ? createGzip({ level: 1 }) : undefined;
  if (gzip) {
    gzip.pipe(file);
    file.on('error', (error) => gzip.destroy(error));
  }
  return {
    sink: gzip ?? file,
    async complete() {
      (gzip ?? file).end();
      await finished(file);
      if (special) return;
      const fd = openSync(temporary, 'r');
      try {
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      renameSync(temporary, path);
    },
    abandon() {
      file.destroy();
      if (!special) rmSync(temporary, { force: true });
    },
  };
}

/**
 * The input's bytes, gunzipped where they start with gzip's magic number; `share()`, the part of the file read so far
 * (0 to 1) where its size is known.
 */
export function openInput(path: string): { stream: Readable; share: () => number | undefined } {
  if (path === '-') return { stream: process.stdin, share: () => undefined };
  const fd = openSync(path, 'r');
  const magic = Buffer.alloc(2);
  const read = readSync(fd, magic, 0, 2, 0);
  const size = statSync(path).size;
  const file = createReadStream(path, { fd, start: 0, highWaterMark: 1 << 16 });
  const share = () => (size > 0 ? file.bytesRead / size : undefined);
  if (read === 2 && magic[0] === 0x1f && magic[1] === 0x8b) {
    const gunzip = createGunzip();
    file.on('error', (error) => gunzip.destroy(error));
    return { stream: file.pipe(gunzip), share };
  }
  return { stream: file, share };
}

/** A progress line on standard error while it is a terminal (records, rate, ETA); silent otherwise. */
export function progressLine(verb: string, total: () => number | undefined): { tick(done: number): void; end(): void } {
  const terminal = process.stderr.isTTY === true;
  const started = performance.now();
  let shown = 0;
  let last = 0;
  return {
    tick(done) {
      last = done;
      const now = performance.now();
      if (!terminal || now - shown < 250) return;
      shown = now;
      const rate = done / ((now - started) / 1000);
      const all = total();
      const eta = all !== undefined && rate > 0 ? `, about ${Math.ceil((all - done) / rate)} s left` : '';
      const of = all === undefined ? '' : ` of ${all.toLocaleString('en')}`;
      process.stderr.write(
        `\r${verb} ${done.toLocaleString('en')}${of} records (${Math.round(rate).toLocaleString('en')}/s${eta})\u001b[K`,
      );
    },
    end() {
      if (terminal && shown > 0) process.stderr.write(`\r${verb} ${last.toLocaleString('en')} records\u001b[K\n`);
    },
  };
}
