// Token issuance and checking against a real SQLite file: the secret is shown once and never stored, only its hash;
// revoked, expired and unknown tokens are told apart; durations and scopes parse strictly.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { useTestStore } from '@plant-store/test-kit';
import { beforeAll, describe, expect, it } from 'vitest';
import { authenticateToken, issueToken, parseDuration, parseScopes } from '../../src/auth/tokens.js';
import type { Store } from '../../src/store/store.js';

const testStore = useTestStore('sqlite');
let store: Store;
let path: string;

beforeAll(() => {
  store = testStore.store;
  path = testStore.database.file ?? '';
});

/** The raw bytes of the database and its WAL, as a reader of the disk would see them. */
function databaseBytes(): Buffer {
  return Buffer.concat([path, `${path}-wal`].filter((file) => existsSync(file)).map((file) => readFileSync(file)));
}

describe('issueToken', () => {
  it('issues a pst_ token with a tok_ id, both scopes by default and no expiry', async () => {
    const now = new Date('2026-05-01T10:00:00.000Z');
    const { token, record } = await issueToken(store.tokens, { subject: 'alice', now });
    expect(token).toMatch(/^pst_[A-Za-z0-9_-]{43}$/); // 32 random bytes, base64url
    expect(record).toEqual({
      id: expect.stringMatching(/^tok_[A-Za-z0-9_-]{12}$/),
      subject: 'alice',
      scopes: ['read', 'write'],
      createdAt: now,
      expiresAt: null,
      revokedAt: null,
    });
    expect((await store.tokens.list()).map((listed) => listed.id)).toContain(record.id);
  });

  it('gives every token its own secret and id', async () => {
    const issued = await Promise.all(
      Array.from({ length: 20 }, () => issueToken(store.tokens, { subject: 'many', scopes: ['read'] })),
    );
    expect(new Set(issued.map(({ token }) => token)).size).toBe(20);
    expect(new Set(issued.map(({ record }) => record.id)).size).toBe(20);
  });

  it('sets the expiry from now and keeps each scope once', async () => {
    const now = new Date('2026-05-01T10:00:00.000Z');
    const { record } = await issueToken(store.tokens, {
      subject: 'bob',
      scopes: ['write', 'write'],
      expiresInMs: 3_600_000,
      now,
    });
    expect(record.scopes).toEqual(['write']);
    expect(record.expiresAt).toEqual(new Date('2026-05-01T11:00:00.000Z'));
  });

  it('stores only the SHA-256 of the token, never the secret', async () => {
    const { token, record } = await issueToken(store.tokens, { subject: 'hash-only' });
    const secret = token.slice('pst_'.length);
    const hash = createHash('sha256').update(token).digest();
    expect((await store.tokens.findByHash(hash))?.id).toBe(record.id);
    const bytes = databaseBytes();
    // The scan sees what was written (the hash and the id are there), so not finding the secret means something.
    expect(bytes.includes(hash)).toBe(true);
    expect(bytes.includes(record.id)).toBe(true);
    expect(bytes.includes(secret)).toBe(false);
    expect(bytes.includes(Buffer.from(secret, 'base64url'))).toBe(false);
  });

  it.each([
    ['empty', ''],
    ['too long', 'x'.repeat(201)],
    ['a newline', 'alice\nFAKE LOG LINE'],
    ['a tab', 'al\tice'],
    ['DEL', 'al\u007fice'],
    ['a C1 control', 'al\u0085ice'],
  ])('refuses a subject that is %s', async (_, subject) => {
    await expect(issueToken(store.tokens, { subject })).rejects.toThrow(
      new TypeError('the subject must be 1 to 200 characters with no control characters'),
    );
  });

  it('accepts a 200-character subject and non-ASCII letters', async () => {
    await expect(issueToken(store.tokens, { subject: 'y'.repeat(200) })).resolves.toBeDefined();
    await expect(issueToken(store.tokens, { subject: 'Zoë 🌵' })).resolves.toBeDefined();
  });

  it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])('refuses expiresInMs %s', async (expiresInMs) => {
    await expect(issueToken(store.tokens, { subject: 'carol', expiresInMs })).rejects.toThrow(TypeError);
  });

  it('refuses an empty scope list', async () => {
    await expect(issueToken(store.tokens, { subject: 'carol', scopes: [] })).rejects.toThrow(/at least one scope/);
  });
});

describe('authenticateToken', () => {
  it('accepts a live token and names its principal', async () => {
    const { token } = await issueToken(store.tokens, { subject: 'dora', scopes: ['read'] });
    expect(await authenticateToken(store.tokens, token)).toEqual({
      ok: true,
      principal: { subject: 'dora', scopes: ['read'] },
    });
  });

  it.each([
    ['a made-up token', `pst_${'A'.repeat(43)}`],
    ['an empty string', ''],
    ['a token id', 'tok_abcdefghijkl'],
  ])('calls %s unknown', async (_, token) => {
    expect(await authenticateToken(store.tokens, token)).toEqual({ ok: false, reason: 'unknown' });
  });

  it('calls a token that differs by one character unknown', async () => {
    const { token } = await issueToken(store.tokens, { subject: 'eve' });
    const altered = token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A');
    expect(await authenticateToken(store.tokens, altered)).toEqual({ ok: false, reason: 'unknown' });
    expect(await authenticateToken(store.tokens, token.slice('pst_'.length))).toEqual({ ok: false, reason: 'unknown' });
  });

  it('refuses a revoked token from the moment it is revoked', async () => {
    const { token, record } = await issueToken(store.tokens, { subject: 'fay' });
    expect((await authenticateToken(store.tokens, token)).ok).toBe(true);
    expect(await store.tokens.revoke(record.id, new Date())).toBe(true);
    expect(await authenticateToken(store.tokens, token)).toEqual({ ok: false, reason: 'revoked' });
  });

  it('accepts a token until its expiry and refuses it from then on', async () => {
    const now = new Date('2026-05-01T10:00:00.000Z');
    const { token } = await issueToken(store.tokens, { subject: 'gus', expiresInMs: 60_000, now });
    const at = (ms: number) => new Date(now.getTime() + ms);
    expect((await authenticateToken(store.tokens, token, at(59_999))).ok).toBe(true);
    expect(await authenticateToken(store.tokens, token, at(60_000))).toEqual({ ok: false, reason: 'expired' });
    expect(await authenticateToken(store.tokens, token, at(86_400_000))).toEqual({ ok: false, reason: 'expired' });
  });

  it('reports revoked before expired', async () => {
    const now = new Date('2026-05-01T10:00:00.000Z');
    const { token, record } = await issueToken(store.tokens, { subject: 'hal', expiresInMs: 1_000, now });
    await store.tokens.revoke(record.id, now);
    expect(await authenticateToken(store.tokens, token, new Date('2027-01-01'))).toEqual({
      ok: false,
      reason: 'revoked',
    });
  });
});

describe('parseDuration', () => {
  it.each([
    ['90s', 90_000],
    ['30m', 1_800_000],
    ['12h', 43_200_000],
    ['7d', 604_800_000],
    ['1w', 604_800_000],
    ['365d', 31_536_000_000],
    [' 5m ', 300_000],
  ])('reads %j as %i ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['', '10', 'm', '1.5h', '-1h', '+1h', '0s', '10y', '1h30m', '5 m', '5M', '1234567d', 'soon'])(
    'refuses %j',
    (text) => {
      expect(() => parseDuration(text)).toThrow(TypeError);
    },
  );

  it('says what it accepts', () => {
    expect(() => parseDuration('soon')).toThrow('"soon" is not a duration; use a number and a unit, e.g. 90s');
  });
});

describe('parseScopes', () => {
  it.each([
    ['read', ['read']],
    ['write', ['write']],
    ['read,write', ['read', 'write']],
    ['write read', ['write', 'read']],
    ['read, write,read', ['read', 'write']],
    [' write ', ['write']],
  ])('reads %j', (text, scopes) => {
    expect(parseScopes(text)).toEqual(scopes);
  });

  it.each(['', ' , ', 'admin', 'read,admin', 'READ', 'read;write', '*'])('refuses %j', (text) => {
    expect(() => parseScopes(text)).toThrow(TypeError);
  });

  it('names the unknown scope', () => {
    expect(() => parseScopes('read,admin')).toThrow('unknown scope "admin"; the scopes are read and write');
  });
});
