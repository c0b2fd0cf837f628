// Where `plant-store export` writes, as its own process: standard output (the archive alone on it; a reader that
// closes the pipe early fails the export, saying so), a full disk (/dev/full) fails saying so, and a file is created
// 0600 and replaced only by a whole archive (gzip for FILE.gz, which import reads as it is).
import { spawn } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { createTestApp, createTestDatabase, type TestDatabase } from '@plant-store/test-kit';
import { BIN } from '@plant-store/test-kit/server-process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let folder: string;
let source: TestDatabase;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'plant-store-export-output-'));
  source = createTestDatabase('sqlite');
  const app = await createTestApp({ env: { DATABASE_URL: source.url, RATE_LIMIT_MAX: '0' } });
  try {
    // Enough plants that the archive outgrows a pipe's buffer (64 KiB).
    await Promise.all(
      Array.from({ length: 3000 }, (_, index) =>
        app.store.plants.create('alice', { id: BigInt(index + 1), name: `a plant with a longish name ${index}` }),
      ),
    );
  } finally {
    await app.close();
  }
});
afterAll(async () => {
  await source?.drop();
  await rm(folder, { recursive: true, force: true });
});

/** Runs `plant-store export --output OUTPUT`; `stdout` decides what happens to its standard output. */
function exportTo(output: string, onStdout?: (child: ReturnType<typeof spawn>) => void) {
  const child = spawn(process.execPath, [BIN, 'export', '--output', output], {
    env: { ...process.env, DATABASE_URL: source.url },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out: Buffer[] = [];
  let err = '';
  child.stderr!.on('data', (chunk) => {
    err += chunk;
  });
  if (onStdout) onStdout(child);
  else child.stdout!.on('data', (chunk: Buffer) => out.push(chunk));
  return new Promise<{ code: number | null; stdout: Buffer; stderr: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, stdout: Buffer.concat(out), stderr: err })),
  );
}

describe('plant-store export --output', () => {
  it('- writes the archive alone to standard output', async () => {
    const { code, stdout, stderr } = await exportTo('-');
    expect(code).toBe(0);
    const lines = stdout.toString('utf8').trimEnd().split('\n');
    expect(JSON.parse(lines[0]!)).toMatchObject({ kind: 'header', format: 'plant-store-archive', engine: 'sqlite' });
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({ kind: 'trailer', counts: { plant: 3000 } });
    expect(stderr).toMatch(/^Exported 3001 records .* to standard output/);
  });

  it('- pipes into `import --input -` (standard input)', async () => {
    const target = createTestDatabase('sqlite');
    try {
      const importing = spawn(process.execPath, [BIN, 'import', '--input', '-', '--json'], {
        env: { ...process.env, DATABASE_URL: target.url },
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let summary = '';
      importing.stdout!.on('data', (chunk) => {
        summary += chunk;
      });
      const imported = new Promise<number | null>((resolve) => importing.on('close', resolve));
      const { code } = await exportTo('-', (child) => child.stdout!.pipe(importing.stdin!));
      expect(code).toBe(0);
      expect(await imported).toBe(0);
      expect(JSON.parse(summary)).toMatchObject({ records: 3001, counts: { plant: 3000, owner: 1 } });
    } finally {
      await target.drop();
    }
  });

  it('- fails, saying so, when the reader closes the pipe early', async () => {
    const { code, stderr } = await exportTo('-', (child) => {
      child.stdout!.once('data', () => child.stdout!.destroy());
    });
    expect(code).toBe(1);
    expect(stderr).toContain('export failed: could not write -: the reader closed the pipe (EPIPE)');
  });

  it('fails, saying so, into a folder that does not exist', async () => {
    const { code, stderr } = await exportTo(join(folder, 'missing', 'x.jsonl'));
    expect(code).toBe(1);
    expect(stderr).toContain('its folder does not exist (ENOENT); no archive was written');
  });

  it('fails, saying so, on a full disk', async () => {
    const { code, stderr } = await exportTo('/dev/full');
    expect(code).toBe(1);
    expect(stderr).toContain('could not write /dev/full: no space left on the device (ENOSPC); no archive was written');
  });

  it('creates FILE.gz 0600 and compressed, replacing an older file of that name', async () => {
    const file = join(folder, 'nightly.jsonl.gz');
    writeFileSync(file, 'an older archive', { mode: 0o644 });
    const { code } = await exportTo(file);
    expect(code).toBe(0);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const text = gunzipSync(readFileSync(file)).toString('utf8');
    expect(text.trimEnd().split('\n')).toHaveLength(3001 + 2);
    expect(text.startsWith('{"kind":"header"')).toBe(true);
  });
});
