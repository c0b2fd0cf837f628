// The CLI's help, version and error lines, called in-process: `<command> --help` prints that command's usage, an
// error is one line plus where the usage is (not the whole usage again), and `token create` names its database.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { main } from '../../src/cli/main.js';
import { describeDatabase } from '../../src/store/describe-database.js';

const dir = mkdtempSync(join(tmpdir(), 'plant-store-cli-help-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function run(argv: string[], env: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const io = { stdout: (line: string) => out.push(line), stderr: (line: string) => err.push(line), env };
  const code = await main(argv, io);
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}

describe('plant-store <command> --help', () => {
  it.each([
    [['token', 'create', '--help'], 'token create --subject NAME', ['--scope LIST', '--expires-in D'], 'token revoke'],
    [['serve', '--help'], 'serve [--workers N]', ['--workers N', 'SIGTERM'], 'token create'],
    [['webhook', 'add', '--help'], 'webhook add --url URL', ['--url URL', '--subject NAME'], 'webhook replay'],
    [['help', 'webhook', 'add'], 'webhook add --url URL', ['--url URL'], 'webhook list'],
    [['token', 'revoke', '-h'], 'token revoke ID', [], 'token list'],
  ])('%j prints that command alone', async (argv, synopsis, options, other) => {
    const { code, stdout, stderr } = await run(argv);
    expect(code).toBe(0);
    expect(stderr).toBe('');
    expect(stdout.split('\n')[0]?.startsWith(`Usage: plant-store ${synopsis}`)).toBe(true);
    for (const option of options) expect(stdout).toContain(option);
    expect(stdout).not.toContain(other);
  });

  it('lists the subcommands of `token --help` and nothing else', async () => {
    const { stdout } = await run(['token', '--help']);
    expect(stdout).toMatch(/^Usage: plant-store token <command>/);
    expect(stdout).toContain('token revoke ID');
    expect(stdout).not.toContain('webhook');
  });

  it('prints the whole usage for --help alone', async () => {
    const { stdout } = await run(['--help']);
    expect(stdout).toMatch(/^Usage: plant-store <command> \[options\]/);
    expect(stdout).toContain('webhook replay DELIVERY_ID');
  });
});

describe('plant-store --version', () => {
  const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
  const contract = parse(readFileSync(new URL('../../../../openapi.yaml', import.meta.url), 'utf8')).info.version;

  it.each(['--version', '-v', 'version'])(
    '%s prints the version of the service and of the contract it serves',
    async (flag) => {
      expect(contract).toMatch(/^\d+\.\d+\.\d+$/);
      expect(await run([flag])).toEqual({
        code: 0,
        stdout: `plant-store ${version} (contract ${contract})`,
        stderr: '',
      });
    },
  );
});

describe('usage errors', () => {
  it.each([
    [['frobnicate'], 'unknown command "frobnicate"', 'plant-store --help'],
    [['token'], 'token needs a command: create, list or revoke', 'plant-store token --help'],
    [['token', 'rotate'], 'unknown token command "rotate"', 'plant-store token --help'],
    [['token', 'create', '--subject', 'x', '--bogus'], 'unknown option "--bogus"', 'plant-store token create --help'],
    // parseArgs's refusals, in the same voice as the rest (lower case, names in double quotes, no Node wording).
    [['token', 'create', '-x'], 'plant-store: unknown option "-x"', 'plant-store token create --help'],
    [['token', 'create', '--subject'], 'plant-store: --subject needs a value', 'plant-store token create --help'],
    [
      ['token', 'create', '--subject', '--bogus'],
      'plant-store: --subject needs a value; one that starts with "-" is written --subject=-VALUE',
      'plant-store token create --help',
    ],
    [['token', 'list', '--json=yes'], 'plant-store: --json takes no value', 'plant-store token list --help'],
    [['migrate', 'now'], 'plant-store: unexpected argument "now"', 'plant-store migrate --help'],
    [['webhook', 'add', '--url'], 'plant-store: --url needs a value', 'plant-store webhook add --help'],
    [['serve', '--workers', 'many'], '--workers must be a whole number', 'plant-store serve --help'],
    [['webhook', 'add'], 'webhook add needs --url URL', 'plant-store webhook add --help'],
    // The nearest command or option, when one is near.
    [['serv'], 'unknown command "serv"; did you mean serve?', 'plant-store --help'],
    [['--verison'], 'unknown command "--verison"; did you mean --version?', 'plant-store --help'],
    [['token', 'lst'], 'unknown token command "lst"; did you mean list?', 'plant-store token --help'],
    [
      ['webhook', 'delivery'],
      'unknown webhook command "delivery"; did you mean deliveries?',
      'plant-store webhook --help',
    ],
    [
      ['token', 'create', '--subjct', 'x'],
      'unknown option "--subjct"; did you mean --subject?',
      'plant-store token create --help',
    ],
  ])('%j: one line, then where the usage is', async (argv, message, help) => {
    const { code, stdout, stderr } = await run(argv, { DATABASE_URL: `sqlite:${join(dir, 'errors.db')}` });
    expect(code).toBe(2);
    expect(stdout).toBe('');
    const lines = stderr.split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain(message);
    expect(lines[1]).toBe(`see \`${help}\``);
    expect(lines[0]).not.toMatch(/Unknown|Unexpected|Option '|positional|<value>/);
  });
});

describe('token create names the database it wrote to', () => {
  it('says so on stderr, keeping stdout for the token', async () => {
    const file = join(dir, 'tokens.db');
    const { code, stdout, stderr } = await run(['token', 'create', '--subject', 'ann'], {
      DATABASE_URL: `sqlite:${file}`,
    });
    expect(code).toBe(0);
    expect(stderr).toBe(`Wrote the token to the SQLite database ${file} (DATABASE_URL).`);
    expect(stdout.split('\n').at(-1)).toMatch(/^pst_/);
  });

  it.each([
    [
      'postgres://app:secret@db.example:6543/plants?schema=tenant_a',
      'the PostgreSQL database plants on db.example:6543, schema tenant_a, user app',
    ],
    [
      'postgresql://db.example/plants?sslmode=require',
      'the PostgreSQL database plants on db.example:5432, schema public',
    ],
    [
      'postgres:///plants?host=/var/run/postgresql',
      'the PostgreSQL database plants on /var/run/postgresql:5432, schema public',
    ],
  ])('names PostgreSQL by database, host, schema and user, never the password: %s', (url, described) => {
    expect(describeDatabase(url)).toBe(described);
  });
});
