// The `plant-store` command as a user runs it: a real child process on a real SQLite file.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { authenticateToken } from '../src/services/tokens.js';
import { openStore } from '../src/store/open-store.js';
import { BIN } from './support/process.js';

const dir = mkdtempSync(join(tmpdir(), 'plant-store-cli-'));
const databasePath = join(dir, 'cli.db');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [BIN, ...args], {
      env: { ...process.env, DATABASE_URL: `sqlite:${databasePath}` },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failure = error as { code: number; stdout: string; stderr: string };
    return { code: failure.code, stdout: failure.stdout, stderr: failure.stderr };
  }
}

async function check(token: string) {
  const store = await openStore(`sqlite:${databasePath}`);
  try {
    return await authenticateToken(store.tokens, token);
  } finally {
    await store.close();
  }
}

describe('plant-store CLI', () => {
  it('migrates, then reports the database up to date', async () => {
    expect(await cli('migrate')).toMatchObject({ code: 0, stdout: 'Applied migrations 1.\n' });
    expect(await cli('migrate')).toMatchObject({ code: 0, stdout: 'Database is up to date.\n' });
  });

  it('creates a token with both scopes by default, printed alone on the last line, stored only as a hash', async () => {
    const { code, stdout } = await cli('token', 'create', '--subject', 'alice');
    expect(code).toBe(0);
    expect(stdout).toContain('shown only once');
    const token = stdout.trim().split('\n').at(-1)!;
    expect(token).toMatch(/^pst_[A-Za-z0-9_-]{43}$/);
    expect(await check(token)).toMatchObject({ ok: true, principal: { subject: 'alice', scopes: ['read', 'write'] } });
    const files = ['cli.db', 'cli.db-wal'].map((name) => {
      try {
        return readFileSync(join(dir, name)).toString('latin1');
      } catch {
        return '';
      }
    });
    expect(files.join('')).not.toContain(token.slice(4));
  });

  it('creates a read-only token with an expiry', async () => {
    const { stdout } = await cli('token', 'create', '--subject', 'bob', '--scope', 'read', '--expires-in', '1h');
    expect(stdout).toContain('expiring');
    const token = stdout.trim().split('\n').at(-1)!;
    expect(await check(token)).toMatchObject({ ok: true, principal: { subject: 'bob', scopes: ['read'] } });
  });

  it('lists tokens without secrets and revokes them', async () => {
    const created = await cli('token', 'create', '--subject', 'carol');
    const token = created.stdout.trim().split('\n').at(-1)!;
    const listing = await cli('token', 'list');
    expect(listing.stdout).toMatch(/^ID\tSUBJECT\tSCOPES\tCREATED\tEXPIRES\tREVOKED$/m);
    expect(listing.stdout).toContain('carol');
    expect(listing.stdout).not.toContain(token);
    const id = /^(tok_\S+)\tcarol/m.exec(listing.stdout)![1]!;
    expect(await cli('token', 'revoke', id)).toMatchObject({ code: 0, stdout: `Revoked token ${id}.\n` });
    expect(await check(token)).toEqual({ ok: false, reason: 'revoked' });
    expect((await cli('token', 'list')).stdout).toMatch(new RegExp(`^${id}\\tcarol.*\\t20\\d\\d-\\S+$`, 'm'));
  });

  it.each([
    [['token', 'revoke', 'tok_nope'], 1, 'no token has the id "tok_nope"'],
    [['frobnicate'], 2, 'unknown command "frobnicate"'],
    [['token', 'create'], 2, 'token create needs --subject NAME'],
    [['token', 'create', '--subject', 'x', '--scope', 'admin'], 2, 'unknown scope "admin"'],
    [['token', 'create', '--subject', 'x', '--expires-in', 'soon'], 2, '"soon" is not a duration'],
    [['token', 'create', '--subject', 'x', '--bogus'], 2, "Unknown option '--bogus'"],
    [['serve', '--workers', 'many'], 2, '--workers must be a whole number'],
  ])('refuses %j with exit code %i and a clear message', async (args, code, message) => {
    const result = await cli(...args);
    expect(result.code).toBe(code);
    expect(result.stderr).toContain(message);
  });

  it('explains a bad setting', async () => {
    const { code, stderr } = await promisify(execFile)(process.execPath, [BIN, 'migrate'], {
      env: { ...process.env, DATABASE_URL: 'mysql://nope' },
    }).then(
      (result) => ({ code: 0, stderr: result.stderr }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(code).toBe(2);
    expect(stderr).toContain('DATABASE_URL must be sqlite:<file path>');
  });

  it('prints help', async () => {
    expect((await cli('--help')).stdout).toContain('token create --subject NAME');
  });
});
