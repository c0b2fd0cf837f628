// The SDK's size is stated once, in its README's Size block, as the build measured it: a fresh measurement
// (`scripts/size.mjs --check`) finds the same figures, and no other README states a size of its own.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const run = promisify(execFile);
const SDK = new URL('../../', import.meta.url);
const ROOT = new URL('../../', SDK);

it("the README's size block matches a fresh measurement of the built SDK", async () => {
  const { stdout } = await run(process.execPath, ['scripts/size.mjs', '--check'], { cwd: SDK.pathname });
  const measured = /@plant-store\/sdk: ([\d.]+ KB) min\+gzip \((\d+) bytes\)/.exec(stdout);
  const readme = readFileSync(new URL('README.md', SDK), 'utf8');
  expect(readme).toContain(`**${measured?.[1]}** min+gzip (${measured?.[2]} bytes)`);
}, 60_000);

it('states the size in one place: no other README or doc gives a figure', () => {
  const sdkReadme = readFileSync(new URL('README.md', SDK), 'utf8');
  const outsideBlock = sdkReadme.replace(/<!-- size:[\s\S]*?<!-- \/size -->/, '');
  expect(outsideBlock).not.toMatch(/\d(\.\d+)? ?KB/i);
  for (const file of ['README.md', 'examples/web/README.md']) {
    let text = '';
    try {
      text = readFileSync(new URL(file, ROOT), 'utf8');
    } catch {}
    expect(text, file).not.toMatch(/\d(\.\d+)? ?KB min\+gzip/i);
  }
});
