// `plant-store import` refuses a bad archive, a target that is not empty and a database lost mid-way, on SQLite and
// on PostgreSQL: exit 1 with the line and the reason, and the target exactly as before (its own export unchanged).

import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { createTestApp, createTestDatabase, POSTGRES_URL, type TestDatabase, waitFor } from '@plant-store/test-kit';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ArchiveWriter, type PlantRecord } from '../../src/store/archive/format.js';
import { cli } from './fixtures/cli-in-process.js';

let folder: string;
/** The lines of a valid archive of a small database (header, records, trailer). */
let lines: string[];

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'plant-store-refusals-'));
  const database = createTestDatabase('sqlite');
  const source = await createTestApp({ env: { DATABASE_URL: database.url, RATE_LIMIT_MAX: '0' } });
  try {
    const token = await source.token('alice');
    for (let id = 1; id <= 5; id++) {
      const answer = await source.app.inject({
        method: 'POST',
        url: '/plants',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        payload: JSON.stringify({ id, name: `plant ${id}` }),
      });
      expect(answer.statusCode).toBe(200);
    }
  } finally {
    await source.close();
  }
  const file = join(folder, 'good.jsonl');
  expect((await cli(['export', '--output', file], { DATABASE_URL: database.url })).code).toBe(0);
  await database.drop();
  lines = readFileSync(file, 'utf8').split('\n').slice(0, -1);
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

/** The archive with its records edited and a trailer that matches them again (counts and checksum). */
function resealed(edit: (records: string[]) => string[]): string {
  const body = edit(lines.slice(0, -1))
    .map((line) => `${line}\n`)
    .join('');
  const counts = JSON.parse(lines.at(-1)!).counts as Record<string, number>;
  for (const kind of Object.keys(counts)) counts[kind] = 0;
  for (const line of body.split('\n').slice(1, -1)) {
    const { kind } = JSON.parse(line) as { kind: string };
    if (kind in counts) counts[kind]!++;
  }
  const sha256 = createHash('sha256').update(body).digest('hex');
  return `${body}${JSON.stringify({ kind: 'trailer', counts, sha256 })}\n`;
}

const plantLine = () => lines.findIndex((line) => line.includes('"kind":"plant"'));

/** Each bad archive, the line it must be refused at, and the reason's words. */
const BAD: [string, () => string, () => number, RegExp][] = [
  ['cut inside a line', () => lines.join('\n').slice(0, -40), () => lines.length, /ends inside a line/],
  ['cut before its trailer', () => `${lines.slice(0, -1).join('\n')}\n`, () => lines.length - 1, /without its trailer/],
  [
    'with a flipped byte',
    () => `${lines.join('\n')}\n`.replace('plant 3', 'plant 4'),
    () => lines.length,
    /checksum mismatch/,
  ],
  [
    'with a plant twice',
    () =>
      resealed((records) => [
        ...records.slice(0, plantLine() + 2),
        records[plantLine()]!,
        ...records.slice(plantLine() + 2),
      ]),
    () => plantLine() + 3,
    /plant 1 of "alice" appears twice/,
  ],
  [
    'of a newer format version',
    () => resealed((records) => [records[0]!.replace('"version":1', '"version":2'), ...records.slice(1)]),
    () => 1,
    /format version 2 is newer/,
  ],
  [
    'with a record of an unknown kind',
    () => resealed((records) => [...records.slice(0, 2), '{"kind":"comment","text":"hi"}', ...records.slice(2)]),
    () => 3,
    /unknown record kind "comment"/,
  ],
];

/** The target's own export, without the header's time: what "exactly as before" compares. */
async function contents(url: string): Promise<string[]> {
  const file = join(folder, `contents-${Math.random().toString(36).slice(2)}.jsonl`);
  const exported = await cli(['export', '--output', file], { DATABASE_URL: url });
  expect(exported.code).toBe(0);
  return readFileSync(file, 'utf8').split('\n').slice(1, -2);
}

describe.each(['sqlite', 'postgres'] as const)('import into %s', (kind) => {
  let target: TestDatabase;
  beforeAll(() => {
    target = createTestDatabase(kind);
  });
  afterAll(async () => {
    await target.drop();
  });

  it.each(BAD)('refuses an archive %s, naming the line, and changes nothing', async (_name, archive, line, reason) => {
    const file = join(folder, `bad-${kind}.jsonl`);
    writeFileSync(file, archive());
    const refused = await cli(['import', '--input', file], { DATABASE_URL: target.url });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`refused: line ${line()}: `);
    expect(refused.stderr).toMatch(reason);
    expect(refused.stderr).toMatch(/nothing was imported/);
    expect(await contents(target.url)).toEqual([]);
  });

  it('refuses a target that holds data, naming it, and leaves it as it was', async () => {
    const held = createTestDatabase(kind);
    try {
      expect((await cli(['token', 'create', '--subject', 'someone'], { DATABASE_URL: held.url })).code).toBe(0);
      const before = await contents(held.url);
      const file = join(folder, `good-${kind}.jsonl`);
      writeFileSync(file, `${lines.join('\n')}\n`);
      const refused = await cli(['import', '--input', file], { DATABASE_URL: held.url });
      expect(refused).toMatchObject({ code: 1 });
      expect(refused.stderr).toContain('the target database is not empty: it holds 1 token;');
      expect(await contents(held.url)).toEqual(before);
      // The same archive goes into an empty one.
      expect((await cli(['import', '--input', file], { DATABASE_URL: target.url })).code).toBe(0);
      expect((await contents(target.url)).filter((line) => line.includes('"kind":"plant"'))).toHaveLength(5);
    } finally {
      await held.drop();
    }
  });
});

describe('what export and import refuse before any work', () => {
  it.each([
    [['export', '--output', '-'], 'memory:', 2, 'keeps nothing another process can export'],
    [['import', '--input', 'x.jsonl'], 'memory:', 2, 'keeps nothing: import into SQLite or PostgreSQL'],
    [['export'], 'sqlite::memory:', 2, 'export needs --output FILE'],
    [['import'], 'sqlite::memory:', 2, 'import needs --input FILE'],
    [['import', '--input', '/nonexistent/archive.jsonl'], 'sqlite:/tmp/never-made.db', 1, 'there is no file'],
  ])('%j on %s exits %i', async (argv, databaseUrl, code, message) => {
    const refused = await cli(argv, { DATABASE_URL: databaseUrl });
    expect(refused.code).toBe(code);
    expect(refused.stderr).toContain(message);
  });
});

/** A valid archive of `plants` plants of one owner, written as export writes it. */
async function bigArchive(file: string, plants: number): Promise<void> {
  const sink = new PassThrough();
  const chunks: Buffer[] = [];
  sink.on('data', (chunk: Buffer) => chunks.push(chunk));
  const writer = new ArchiveWriter(sink, { contract: 'test', engine: 'sqlite', exportedAt: new Date().toISOString() });
  for (let start = 1; start <= plants; start += 1000) {
    const batch: PlantRecord[] = [];
    for (let id = start; id < start + 1000 && id <= plants; id++) {
      batch.push({
        kind: 'plant',
        owner: 'bulk',
        id: String(id),
        name: `plant ${id}`,
        tag: null,
        createdAt: new Date().toISOString(),
      });
    }
    await writer.write(batch);
  }
  await writer.finish();
  writeFileSync(file, Buffer.concat(chunks));
}

describe('a database lost mid-import', () => {
  it('PostgreSQL: the import connection killed fails naming the line reached, and nothing is kept', async () => {
    const target = createTestDatabase('postgres');
    const file = join(folder, 'big.jsonl');
    await bigArchive(file, 400_000);
    const admin = new pg.Client({ connectionString: POSTGRES_URL });
    await admin.connect();
    try {
      const importing = cli(['import', '--input', file], { DATABASE_URL: target.url });
      // Killed once the import has begun writing rows in its transaction.
      await waitFor(
        'the import to be writing',
        async () => {
          const { rows } = await admin.query(
            `SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND backend_xid IS NOT NULL`,
            [`plant-store import ${target.schema}`],
          );
          if (rows.length === 0) return false;
          await admin.query('SELECT pg_terminate_backend($1)', [rows[0].pid]);
          return true;
        },
        { everyMs: 5 },
      );
      const refused = await importing;
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/refused: after line \d+: .*PostgreSQL/);
      expect(refused.stderr).toMatch(/nothing was imported/);
      expect(await contents(target.url)).toEqual([]);
    } finally {
      await admin.end();
      await target.drop();
    }
  });

  // A file system of 4 MiB of its own (tmpfs): mounting one needs root.
  it.skipIf(process.getuid?.() !== 0)('SQLite: a full disk fails, and the database is as before', async () => {
    const mount = join(folder, 'small-disk');
    mkdirSync(mount);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', mount]);
    try {
      const url = `sqlite:${join(mount, 'plants.db')}`;
      expect((await cli(['migrate'], { DATABASE_URL: url })).code).toBe(0);
      const file = join(folder, 'full.jsonl');
      await bigArchive(file, 100_000);
      const refused = await cli(['import', '--input', file], { DATABASE_URL: url });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/refused: after line \d+: .*SQLITE_FULL/);
      expect(await contents(url)).toEqual([]);
    } finally {
      execFileSync('umount', [mount]);
    }
  });
});
