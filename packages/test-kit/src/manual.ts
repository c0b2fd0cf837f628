// Test support: a manual's examples read from the manual itself, so a test runs what a reader copies, as printed.
import { readFileSync } from 'node:fs';

/** The repository's docs/ folder. */
const DOCS = new URL('../../../docs/', import.meta.url);

/**
 * The text of the first fenced block in `language` (```ini, ```sh) in the section of `docs/<file>` (`../README.md`
 * for the README) headed `heading` (the whole heading line, `## ...`), up to the next heading of that level; throws
 * naming what is missing.
 */
export function manualBlock(file: string, heading: string, language: string): string {
  const markdown = readFileSync(new URL(file, DOCS), 'utf8');
  const level = /^#+ /.exec(heading)?.[0] ?? '## ';
  const section = markdown.split(`\n${heading}\n`)[1]?.split(`\n${level}`)[0];
  if (section === undefined) throw new Error(`docs/${file} has no section "${heading}"`);
  const block = section.split(`\n\`\`\`${language}\n`)[1]?.split('\n```')[0];
  if (block === undefined) throw new Error(`docs/${file}, "${heading}": no \`\`\`${language} block`);
  return `${block}\n`;
}
