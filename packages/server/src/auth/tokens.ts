// Opaque bearer tokens: 256-bit random secrets, issued with a public id, stored only as SHA-256 hashes and
// checked in constant time. No HTTP here; bearer.ts calls authenticateToken.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { isScope, SCOPES, type Scope } from '@plant-store/contract';
import type { TokenRecord, TokenRepository } from '../store/store.js';
import { assertValidSubject } from './principal.js';

function hashToken(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

export async function issueToken(
  tokens: TokenRepository,
  options: { subject: string; scopes?: readonly Scope[]; expiresInMs?: number; now?: Date },
): Promise<{ token: string; record: TokenRecord }> {
  const subject = options.subject;
  assertValidSubject(subject);
  const now = options.now ?? new Date();
  const scopes = [...new Set(options.scopes ?? SCOPES)];
  if (scopes.length === 0) throw new TypeError('a token needs at least one scope');
  const { expiresInMs } = options;
  if (expiresInMs !== undefined && !(Number.isSafeInteger(expiresInMs) && expiresInMs > 0)) {
    throw new TypeError(`expiresInMs must be a positive whole number of milliseconds, got ${expiresInMs}`);
  }
  const token = `pst_${randomBytes(32).toString('base64url')}`;
  const record: TokenRecord = {
    id: `tok_${randomBytes(9).toString('base64url')}`,
    subject,
    scopes,
    createdAt: now,
    expiresAt: expiresInMs === undefined ? null : new Date(now.getTime() + expiresInMs),
    revokedAt: null,
  };
  await tokens.insert(record, hashToken(token));
  return { token, record };
}

export type TokenCheck =
  | { ok: true; principal: { subject: string; scopes: Scope[] } }
  | { ok: false; reason: 'unknown' | 'revoked' | 'expired' };

type Found = (TokenRecord & { secretHash: Buffer }) | undefined;

function check(found: Found, hash: Buffer, now: number): TokenCheck {
  if (!found || !timingSafeEqual(found.secretHash, hash)) return { ok: false, reason: 'unknown' };
  if (found.revokedAt) return { ok: false, reason: 'revoked' };
  if (found.expiresAt && found.expiresAt.getTime() <= now) return { ok: false, reason: 'expired' };
  return { ok: true, principal: { subject: found.subject, scopes: found.scopes } };
}

/**
 * Checks `token` against the store: at once when the store holds its record in memory and knows it current (the
 * returned check), else a promise of the check once the store has looked it up.
 */
export function authenticateToken(
  tokens: TokenRepository,
  token: string,
  now?: Date,
): TokenCheck | Promise<TokenCheck> {
  const known = recentHashes.get(token);
  const hash = known ?? hashToken(token);
  const at = now?.getTime() ?? Date.now();
  const cached = tokens.cachedByHash?.(hash);
  if (cached) return remember(known, token, hash, check(cached, hash, at));
  return tokens.findByHash(hash).then((found) => remember(known, token, hash, check(found, hash, at)));
}

/**
 * The hashes of tokens that passed their check lately, so a client's every request does not hash its token again
 * (SHA-256 was the largest part of checking a token the store holds in memory). Only tokens that passed enter, so
 * random tokens cannot grow it, and at most RECENT_HASHES of them (it is emptied when full). A hash depends on its
 * token alone: a token revoked or expired since is refused by the record its hash finds, as before.
 */
const recentHashes = new Map<string, Buffer>();
const RECENT_HASHES = 10_000;

/** Keeps the hash of a token that passed and was not yet remembered (`known`: what the memo held for it). */
function remember(known: Buffer | undefined, token: string, hash: Buffer, result: TokenCheck): TokenCheck {
  if (result.ok && known === undefined) {
    if (recentHashes.size >= RECENT_HASHES) recentHashes.clear();
    recentHashes.set(token, hash);
  }
  return result;
}

const UNITS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** `90s`, `30m`, `12h`, `7d`, `1w` -> milliseconds. */
export function parseDuration(text: string): number {
  const match = /^(\d{1,6})([smhdw])$/.exec(text.trim());
  if (!match?.[1] || !match[2]) {
    throw new TypeError(`"${text}" is not a duration; use a number and a unit, e.g. 90s, 30m, 12h, 7d or 1w`);
  }
  const ms = Number(match[1]) * UNITS[match[2]]!;
  if (ms <= 0) throw new TypeError('a duration must be greater than zero');
  return ms;
}

/** `read,write` or `read write` -> the scopes, each once. */
export function parseScopes(text: string): Scope[] {
  const names = text.split(/[\s,]+/).filter(Boolean);
  if (names.length === 0) throw new TypeError(`give at least one scope: ${SCOPES.join(', ')}`);
  for (const name of names) {
    if (!isScope(name)) throw new TypeError(`unknown scope "${name}"; the scopes are ${SCOPES.join(' and ')}`);
  }
  return [...new Set(names as Scope[])];
}
