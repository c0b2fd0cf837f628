// The CLI refuses a repeated single-value option, and subjects with leading or trailing space
// (" alice" and "alice" would be two principals that look the same in `token list`).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';

const dir = mkdtempSync(join(tmpdir(), 'plant-store-cli-hardening-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  const env = { DATABASE_URL: `sqlite:${join(dir, 'cli.db')}` };
  return { out, err, io: { stdout: (line: string) => out.push(line), stderr: (line: string) => err.push(line), env } };
}

describe('CLI options and subjects', () => {
  it.each([
    [['--subject', 'alice', '--subject', 'bob']],
    [['--subject', 'alice', '--scope', 'read', '--scope', 'write']],
    [['--subject=alice', '--expires-in', '1d', '--expires-in=2d']],
  ])('refuses a repeated option: token create %j', async (args) => {
    const { out, err, io } = capture();
    expect(await main(['token', 'create', ...args], io)).toBe(2);
    expect(out).toEqual([]);
    expect(err.join('\n')).toMatch(/is given more than once/);
  });

  it.each([' alice', 'alice ', '\talice', ' '])('refuses the subject %j', async (subject) => {
    const { err, io } = capture();
    expect(await main(['token', 'create', '--subject', subject], io)).toBe(2);
    expect(err.join('\n')).toMatch(/white space|control characters/);
  });

  it('still issues a token for a plain subject with an inner space', async () => {
    const { out, io } = capture();
    expect(await main(['token', 'create', '--subject', 'alice smith'], io)).toBe(0);
    expect(out.join('\n')).toContain('"alice smith"');
  });
});
