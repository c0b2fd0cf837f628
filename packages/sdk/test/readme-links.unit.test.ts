// The README and CHANGELOG ship in the npm tarball, where a link relative to the repository (../../openapi.yaml)
// leads nowhere: every link in them is absolute (into the repository on GitHub, at a file that exists) or an anchor.
import { existsSync, readFileSync } from 'node:fs';
import { expect, it } from 'vitest';

const SDK = new URL('../', import.meta.url);
const REPOSITORY = new URL('../../', SDK);
const manifest = JSON.parse(readFileSync(new URL('package.json', SDK), 'utf8')) as {
  files: string[];
  repository: { url: string };
};
const GITHUB = manifest.repository.url.replace(/^git\+/, '').replace(/\.git$/, '');

const shipped = manifest.files.filter((file) => file.endsWith('.md'));

it.each(shipped)(
  '%s links only to absolute URLs and anchors, and its repository links name files that exist',
  (file) => {
    const text = readFileSync(new URL(file, SDK), 'utf8');
    const targets = [...text.matchAll(/\]\(([^)\s]+)\)/g), ...text.matchAll(/^\[[^\]]+\]:\s*(\S+)/gm)].map(
      (match) => match[1] ?? '',
    );
    const relative = targets.filter((target) => !/^(https?:\/\/|mailto:|#)/.test(target));
    expect(relative).toEqual([]);
    for (const target of targets.filter((each) => each.startsWith(`${GITHUB}/`))) {
      const path =
        target
          .slice(GITHUB.length)
          .replace(/^\/(blob|tree)\/main\//, '')
          .split('#')[0] ?? '';
      expect(existsSync(new URL(path, REPOSITORY)), `${target} names ${path}, which is not in the repository`).toBe(
        true,
      );
    }
  },
);

it('links the contract and the example app into the repository on GitHub', () => {
  const readme = readFileSync(new URL('README.md', SDK), 'utf8');
  expect(readme).toContain(`](${GITHUB}/blob/main/openapi.yaml)`);
  expect(readme).toContain(`](${GITHUB}/tree/main/examples/web)`);
});
