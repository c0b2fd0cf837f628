// The archive format's reader and writer: what the writer writes reads back the same however the bytes arrive in
// chunks (lines and the trailer cut anywhere), and the checksum covers every byte before the trailer.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { type ArchiveRecord, ArchiveWriter, type ReadRecord, readArchive } from '../../../src/store/archive/format.js';

const RECORDS: ArchiveRecord[] = [
  { kind: 'owner', owner: 'alice', version: '3' },
  {
    kind: 'plant',
    owner: 'alice',
    id: '9223372036854775807',
    name: 'Fern ✓ "quoted"',
    tag: null,
    createdAt: '2026-01-01T00:00:00.000Z',
  },
  { kind: 'plant', owner: 'alice', id: '2', name: 'Moss', tag: 'green', createdAt: '2026-01-01T00:00:00.000123Z' },
  { kind: 'idempotency-key', owner: 'alice', key: 'k', fingerprint: 'f', status: 200, body: '{}', createdAt: 1 },
];

async function written(): Promise<Buffer> {
  const sink = new PassThrough();
  const chunks: Buffer[] = [];
  sink.on('data', (chunk: Buffer) => chunks.push(chunk));
  const writer = new ArchiveWriter(sink, { contract: '1.0.0', engine: 'sqlite', exportedAt: '2026-01-01T00:00:00Z' });
  await writer.write(RECORDS);
  await writer.finish();
  return Buffer.concat(chunks);
}

async function* inChunks(bytes: Buffer, size: number) {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

async function read(bytes: Buffer, size: number): Promise<ReadRecord[]> {
  const records: ReadRecord[] = [];
  for await (const item of readArchive(inChunks(bytes, size))) if (Array.isArray(item)) records.push(...item);
  return records;
}

describe('readArchive', () => {
  it.each([1, 2, 7, 64, 100_000])('reads back what was written, in chunks of %i bytes', async (size) => {
    const records = await read(await written(), size);
    expect(records.map(({ record }) => record)).toEqual(RECORDS);
    expect(records.map(({ line }) => line)).toEqual([2, 3, 4, 5]);
  });

  it.each([1, 5, 64])('finds a changed byte in any record, in chunks of %i bytes', async (size) => {
    const bytes = await written();
    const changed = Buffer.from(bytes.toString('utf8').replace('Moss', 'Mose'));
    await expect(read(changed, size)).rejects.toThrow(/^line 6: checksum mismatch/);
  });

  it.each([1, 64])('takes a last line without its newline, in chunks of %i bytes', async (size) => {
    const bytes = await written();
    const records = await read(bytes.subarray(0, -1), size);
    expect(records.map(({ record }) => record)).toEqual(RECORDS);
  });

  it('refuses a header that is not the first line, and a line after the trailer', async () => {
    const bytes = await written();
    await expect(read(Buffer.concat([bytes, Buffer.from('{"kind":"owner"}\n')]), 9)).rejects.toThrow(
      /^line 7: data after the trailer/,
    );
    const [, ...rest] = bytes.toString('utf8').split('\n');
    await expect(read(Buffer.from(rest.join('\n')), 9)).rejects.toThrow(/^line 1: not a plant-store archive/);
  });
});
