// The SDK's size is stated once, in its README's Size block: a fresh measurement (`scripts/size.mjs --check`) finds
// the same figures in the README as committed, since neither the build nor a test rewrites it (only `--write` does),
// and no other README or manual (docs/*.md) states a size of its own.
import { execFile } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, expect, it } from 'vitest';

const run = promisify(execFile);
const SDK = new URL('../', import.meta.url);
const ROOT = new URL('../../', SDK);

it("the README's size block matches a fresh measurement of the built SDK", async () => {
  const { stdout } = await run(process.execPath, ['scripts/size.mjs', '--check'], { cwd: SDK.pathname });
  const measured = /@plant-store\/sdk: ([\d.]+ KB) min\+gzip \((\d+) bytes\)/.exec(stdout);
  const readme = readFileSync(new URL('README.md', SDK), 'utf8');
  expect(readme).toContain(`**${measured?.[1]}** min+gzip (${measured?.[2]} bytes)`);
}, 60_000);

const copy = mkdtempSync(join(tmpdir(), 'sdk-size-'));
afterAll(() => rmSync(copy, { recursive: true, force: true }));

it('is rewritten by --write only: the build measures, --check fails on a stale statement', async () => {
  // A copy of the SDK's layout (its built dist/ and dependencies linked) whose README states an old size.
  mkdirSync(join(copy, 'scripts'));
  copyFileSync(new URL('scripts/size.mjs', SDK), join(copy, 'scripts/size.mjs'));
  for (const name of ['dist', 'node_modules']) symlinkSync(new URL(name, SDK).pathname, join(copy, name));
  const stale = readFileSync(new URL('README.md', SDK), 'utf8').replace(/\*\*[\d.]+ KB\*\*/, '**0.01 KB**');
  writeFileSync(join(copy, 'README.md'), stale);
  const size = (...args: string[]) => run(process.execPath, ['scripts/size.mjs', ...args], { cwd: copy });

  await size();
  expect(readFileSync(join(copy, 'README.md'), 'utf8')).toBe(stale);
  await expect(size('--check')).rejects.toMatchObject({ stderr: expect.stringContaining('states another size') });
  await size('--write');
  await size('--check');
  expect(readFileSync(join(copy, 'README.md'), 'utf8')).not.toBe(stale);
}, 60_000);

it('states the size in one place: no other README or doc gives a figure', () => {
  const sdkReadme = readFileSync(new URL('README.md', SDK), 'utf8');
  const outsideBlock = sdkReadme.replace(/<!-- size:[\s\S]*?<!-- \/size -->/, '');
  expect(outsideBlock).not.toMatch(/\d(\.\d+)? ?KB/i);
  const manuals = readdirSync(new URL('docs/', ROOT)).filter((name) => name.endsWith('.md'));
  expect(manuals).toContain('api.md');
  for (const file of ['README.md', 'examples/web/README.md', ...manuals.map((name) => `docs/${name}`)]) {
    let text = '';
    try {
      text = readFileSync(new URL(file, ROOT), 'utf8');
    } catch {}
    expect(text, file).not.toMatch(/\d(\.\d+)? ?KB min\+gzip/i);
  }
});
