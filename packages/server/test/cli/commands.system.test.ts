// The `plant-store` command as a user runs it: a real child process on a real SQLite file.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { BIN } from '@plant-store/test-kit/server-process';
import { afterAll, describe, expect, it } from 'vitest';
import { authenticateToken } from '../../src/auth/tokens.js';
import { main } from '../../src/cli/main.js';
import { openStore } from '../../src/store/open-store.js';
import { sqliteMigrations } from '../../src/store/sqlite/migrations.js';

const dir = mkdtempSync(join(tmpdir(), 'plant-store-cli-'));
const databasePath = join(dir, 'cli.db');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function cliWith(
  env: Record<string, string>,
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [BIN, ...args], {
      env: { ...process.env, DATABASE_URL: `sqlite:${databasePath}`, ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failure = error as { code: number; stdout: string; stderr: string };
    return { code: failure.code, stdout: failure.stdout, stderr: failure.stderr };
  }
}

const cli = (...args: string[]) => cliWith({}, ...args);

async function check(token: string, path = databasePath) {
  const store = await openStore(`sqlite:${path}`);
  try {
    return await authenticateToken(store.tokens, token);
  } finally {
    await store.close();
  }
}

describe('plant-store CLI', () => {
  it('migrates, then reports the database up to date', async () => {
    expect(await cli('migrate')).toMatchObject({
      code: 0,
      stdout: `Applied migrations ${sqliteMigrations.map((migration) => migration.version).join(', ')}.\n`,
    });
    expect(await cli('migrate')).toMatchObject({ code: 0, stdout: 'Database is up to date.\n' });
  });

  it('says which database it wrote a token to, and that it is the default when DATABASE_URL is not set', async () => {
    const { DATABASE_URL: _unset, ...env } = process.env;
    const cwd = mkdtempSync(join(dir, 'default-'));
    const { stderr } = await promisify(execFile)(process.execPath, [BIN, 'token', 'create', '--subject', 'ann'], {
      env,
      cwd,
    });
    expect(stderr).toBe(
      `Wrote the token to the SQLite database ${join(cwd, 'data', 'plant-store.db')} (the default, as DATABASE_URL is not set).\n`,
    );
    const file = join(cwd, 'set.db');
    const set = await cliWith({ DATABASE_URL: `sqlite:${file}` }, 'token', 'create', '--subject', 'ann');
    expect(set.stderr).toBe(`Wrote the token to the SQLite database ${file} (DATABASE_URL).\n`);
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
    // Aligned columns for people: every row's cells start where the header's titles do.
    const [header, ...rows] = listing.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^ID +SUBJECT +SCOPES +CREATED +EXPIRES +REVOKED$/);
    const starts = ['SUBJECT', 'SCOPES', 'CREATED'].map((title) => header!.indexOf(title));
    const row = rows.find((line) => / carol /.test(line))!;
    expect(starts.map((start) => row[start - 1] === ' ' && row[start] !== ' ')).toEqual([true, true, true]);
    expect(listing.stdout).not.toContain(token);
    const id = /^(tok_\S+) +carol/m.exec(listing.stdout)![1]!;
    expect(await cli('token', 'revoke', id)).toMatchObject({ code: 0, stdout: `Revoked token ${id}.\n` });
    expect(await check(token)).toEqual({ ok: false, reason: 'revoked' });
    expect((await cli('token', 'list')).stdout).toMatch(new RegExp(`^${id} +carol .* 20\\d\\d-\\S+$`, 'm'));
    // --json for scripts: every token as a record, dates in ISO 8601, null where none, never the secret.
    const json = await cli('token', 'list', '--json');
    expect(json.code).toBe(0);
    expect(json.stdout).not.toContain(token);
    const records = JSON.parse(json.stdout) as Record<string, unknown>[];
    expect(records.find((record) => record.id === id)).toEqual({
      id,
      subject: 'carol',
      scopes: ['read', 'write'],
      createdAt: expect.stringMatching(/^20\d\d-\d\d-\d\dT[\d:.]+Z$/),
      expiresAt: null,
      revokedAt: expect.stringMatching(/^20\d\d-\d\d-\d\dT[\d:.]+Z$/),
    });
  });

  it('migrates a new database by itself before a token command', async () => {
    const fresh = join(dir, 'fresh', 'tokens.db');
    const env = { DATABASE_URL: `sqlite:${fresh}` };
    const created = await cliWith(env, 'token', 'create', '--subject', 'dan', '--scope', 'write read');
    expect(created.code).toBe(0);
    const token = created.stdout.trim().split('\n').at(-1)!;
    expect(await check(token, fresh)).toMatchObject({
      ok: true,
      principal: { subject: 'dan', scopes: ['write', 'read'] },
    });
    expect(await cliWith(env, 'migrate')).toMatchObject({ code: 0, stdout: 'Database is up to date.\n' });
  });

  it.each([
    [['token', 'revoke', 'tok_nope'], 1, 'no token has the id "tok_nope"'],
    [['frobnicate'], 2, 'unknown command "frobnicate"'],
    [['token'], 2, 'token needs a command: create, list or revoke'],
    [['token', 'rotate'], 2, 'unknown token command "rotate"'],
    [['token', 'revoke'], 2, 'token revoke needs the token id'],
    [['token', 'revoke', 'tok_a', 'tok_b'], 2, 'unexpected argument "tok_b"'],
    [['token', 'list', '--all'], 2, 'unknown option "--all"'],
    [['migrate', 'now'], 2, 'unexpected argument "now"'],
    [['token', 'create'], 2, 'token create needs --subject NAME'],
    [['token', 'create', '--subject', 'x\ty'], 2, 'the subject must be 1 to 200 characters'],
    [['token', 'create', '--subject', 'x', '--scope', ''], 2, 'give at least one scope'],
    [['token', 'create', '--subject', 'x', '--scope', 'admin'], 2, 'unknown scope "admin"'],
    [['token', 'create', '--subject', 'x', '--expires-in', 'soon'], 2, '"soon" is not a duration'],
    [['token', 'create', '--subject', 'x', '--bogus'], 2, 'unknown option "--bogus"'],
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

  it('explains a bad setting of a number', async () => {
    const { code, stderr } = await cliWith({ PORT: 'eighty' }, 'token', 'list');
    expect(code).toBe(2);
    expect(stderr).toContain('configuration error: PORT must be a whole number');
  });

  it.each(['--help', 'help', '-h'])('prints help for %s', async (flag) => {
    expect(await cli(flag)).toMatchObject({ code: 0, stdout: expect.stringContaining('token create --subject NAME') });
  });

  it("prints the command's own usage for --help after a command", async () => {
    const { code, stdout } = await cli('token', 'create', '--help');
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Usage: plant-store token create --subject NAME/);
    expect(stdout).toContain('--expires-in D');
    expect(stdout).not.toContain('token revoke ID');
  });

  it('prints the version, and the contract version it serves', async () => {
    expect(await cli('--version')).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/^plant-store \d+\.\d+\.\d+ \(contract \d+\.\d+\.\d+\)\n$/),
    });
  });
});

describe('main, called in-process', () => {
  function capture(env: Record<string, string | undefined>) {
    const out: string[] = [];
    const err: string[] = [];
    return {
      out,
      err,
      io: { stdout: (line: string) => out.push(line), stderr: (line: string) => err.push(line), env },
    };
  }

  it('answers an unknown command with exit code 2, one line and where the usage is, on stderr', async () => {
    const { out, err, io } = capture({});
    expect(await main(['frobnicate'], io)).toBe(2);
    expect(out).toEqual([]);
    expect(err.join('\n')).toBe('plant-store: unknown command "frobnicate"\nsee `plant-store --help`');
  });

  it('lists tokens through the given environment', async () => {
    const { out, io } = capture({ DATABASE_URL: `sqlite:${join(dir, 'in-process.db')}` });
    expect(await main(['token', 'list'], io)).toBe(0);
    expect(out).toEqual(['no tokens']);
  });
});
