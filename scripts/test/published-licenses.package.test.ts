// Every workspace package that will be published (no `"private": true`) ships the license it declares: pnpm pack
// puts a package folder's LICENSE in the tarball, and the tarball is what users get.
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = new URL('../../', import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), 'plant-store-licenses-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const published = readdirSync(join(ROOT, 'packages'))
  .map((folder) => ({ folder: join(ROOT, 'packages', folder), file: join(ROOT, 'packages', folder, 'package.json') }))
  .map(({ folder, file }) => ({ folder, manifest: JSON.parse(readFileSync(file, 'utf8')) }))
  .filter(({ manifest }) => manifest.private !== true);

it('publishes at least the SDK', () => {
  expect(published.map(({ manifest }) => manifest.name)).toContain('@plant-store/sdk');
});

it.each(published.map(({ folder, manifest }) => [manifest.name as string, folder, manifest]))(
  '%s ships a LICENSE with the license it declares',
  async (name, folder, manifest) => {
    expect(manifest.license).toBe('MIT');
    const destination = mkdtempSync(join(work, 'pack-'));
    await run('npx', ['-y', 'pnpm@10.34.9', 'pack', '--pack-destination', destination], { cwd: folder });
    const tarball = join(destination, readdirSync(destination).find((file) => file.endsWith('.tgz'))!);
    const { stdout: files } = await run('tar', ['-tzf', tarball]);
    expect(files.split('\n'), name).toContain('package/LICENSE');
    const { stdout: text } = await run('tar', ['-xzOf', tarball, 'package/LICENSE']);
    expect(text).toMatch(/^MIT License\n\nCopyright \(c\) \d{4} /);
    expect(text).toContain('Permission is hereby granted, free of charge');
    // The same text as the repository's own LICENSE.
    expect(text).toBe(readFileSync(join(ROOT, 'LICENSE'), 'utf8'));
  },
  120_000,
);
