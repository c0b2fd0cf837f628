// The README is the front door: at most 300 lines, and its Manuals table links every manual under docs/. Every
// relative link in README.md and docs/*.md leads to a file that exists and, with a #fragment, to a heading there
// (GitHub's anchors), so a manual moved or a heading renamed fails here rather than in a reader's browser.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MANUALS = readdirSync(join(ROOT, 'docs'))
  .filter((name) => name.endsWith('.md'))
  .map((name) => `docs/${name}`);
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

/** The lines outside fenced code blocks, with inline code spans blanked (a link in code is not a link). */
function prose(markdown: string): string[] {
  let fenced = false;
  return markdown.split('\n').flatMap((line) => {
    if (line.startsWith('```')) {
      fenced = !fenced;
      return [];
    }
    return fenced ? [] : [line.replace(/`[^`]*`/g, (code) => ' '.repeat(code.length))];
  });
}

/** Every link target of the text that is not an absolute URL (images included). */
function relativeLinks(lines: string[]): string[] {
  const targets = lines.flatMap((line) => [...line.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1] ?? ''));
  return targets.filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

/** The anchors GitHub gives the headings: lower case, punctuation dropped, spaces as '-', repeats numbered. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const found = new Set<string>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const heading = fenced ? undefined : /^#{1,6} (.*)$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const text = heading.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
    const slug = text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    found.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return found;
}

/** The links of `file` that lead nowhere: a missing file, or a fragment no heading of the target has. */
function brokenLinks(
  file: string,
  markdown: string,
  exists: (path: string) => boolean,
  text: (path: string) => string,
) {
  return relativeLinks(prose(markdown)).filter((link) => {
    const [path = '', fragment] = link.split('#');
    const target = path === '' ? file : relative(ROOT, join(ROOT, dirname(file), decodeURIComponent(path)));
    if (path !== '' && !exists(target)) return true;
    return fragment !== undefined && !anchors(target === file ? markdown : text(target)).has(fragment);
  });
}

describe('the README', () => {
  const readme = read('README.md');

  it('is a front door of at most 300 lines', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(300);
  });

  it('links every manual under docs/ from its Manuals table', () => {
    const section = readme.slice(readme.indexOf('## Manuals'));
    const table = prose(section.slice(0, section.indexOf('\n## ', 1)));
    const linked = new Set(relativeLinks(table).map((link) => link.split('#')[0]));
    expect(MANUALS.length).toBeGreaterThanOrEqual(10);
    expect(MANUALS.filter((manual) => !linked.has(manual))).toEqual([]);
  });
});

describe('relative links in the README and the manuals', () => {
  it.each(['README.md', ...MANUALS])('%s: every one leads to a file and heading that exist', (file) => {
    const text = read(file);
    const exists = (path: string) => existsSync(join(ROOT, path));
    expect(brokenLinks(file, text, exists, read)).toEqual([]);
  });

  it('are found broken when a file, an anchor or a level is wrong, and not inside code', () => {
    const manual = [
      '# The manual',
      '## Modes and their environment, `serve`',
      'See [modes](#modes-and-their-environment-serve), [the changelog](../CHANGELOG.md) and [up](../README.md#top).',
      '[gone](missing.md), [a wrong level](CHANGELOG.md), [no such heading](#modes) and `[code](nowhere.md)`.',
      '```',
      '[fenced](nowhere.md)',
      '```',
    ].join('\n');
    const files: Record<string, string> = { 'CHANGELOG.md': '# Changelog', 'README.md': '# Top' };
    const broken = brokenLinks(
      'docs/manual.md',
      manual,
      (path) => path in files,
      (path) => files[path] ?? '',
    );
    expect(broken).toEqual(['missing.md', 'CHANGELOG.md', '#modes']);
  });
});
