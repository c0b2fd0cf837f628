// Verification of identity-provider JWT bearer tokens with jose: keys from a JWKS URL (cached and bounded, see
// jwks.ts), a PEM public key, or a shared secret; issuer, audience, exp and nbf checked with a small tolerance.

import { SCOPES, type Scope } from '@plant-store/contract';
import { errors, importSPKI, type JWTVerifyGetKey, jwtVerify } from 'jose';
import type { JwtConfig } from '../config.js';
import { FailureRun, type RunLog } from '../failure-run.js';
import { createJwksKeys, STALE_MAX_MS } from './jwks.js';
import { assertValidSubject } from './principal.js';

export type JwtResult =
  | { ok: true; principal: { subject: string; scopes: Scope[] } }
  | { ok: false; reason: 'expired' | 'invalid' };

export type JwtVerifier = (token: string) => Promise<JwtResult>;

export { looksLikeJwt } from './jwt-shape.js';

function scopesOf(claim: unknown): Scope[] {
  const granted = typeof claim === 'string' ? claim.split(' ') : Array.isArray(claim) ? claim : [];
  return SCOPES.filter((scope) => granted.includes(scope));
}

/** While the JWKS endpoint keeps failing, one summary line per this many ms (the first failure is logged at once). */
const JWKS_OUTAGE_SUMMARY_MS = 60_000;

export interface JwtVerifierOptions {
  /** Where a JWKS outage is said: once when it starts, then a summary a minute, and when it ends. */
  log?: RunLog;
  /** Overrides for tests: the JWKS fetch, the clock, the summary interval. */
  fetch?: typeof globalThis.fetch;
  now?: () => number;
  outageSummaryMs?: number;
}

export async function createJwtVerifier(config: JwtConfig, options: JwtVerifierOptions = {}): Promise<JwtVerifier> {
  let key: JWTVerifyGetKey | Uint8Array | CryptoKey;
  let algorithms: readonly string[];
  if (config.jwksUrl) {
    const outage = options.log
      ? new FailureRun(
          options.log,
          `cannot fetch the JWKS from ${config.jwksUrl}`,
          options.outageSummaryMs ?? JWKS_OUTAGE_SUMMARY_MS,
          `the last good keys serve for up to ${STALE_MAX_MS / 3_600_000} h; fetched again at most once per ` +
            `JWT_JWKS_COOLDOWN_MS (${config.jwksCooldownMs} ms)`,
        )
      : undefined;
    const now = options.now ?? Date.now;
    key = createJwksKeys(new URL(config.jwksUrl), {
      cooldownMs: config.jwksCooldownMs,
      now,
      ...(options.fetch ? { fetch: options.fetch } : {}),
      onFetchError: (error) => outage?.failed(error, now()),
      onFetched: () => outage?.succeeded(now()),
    });
    algorithms = config.algorithms ?? ['RS256', 'PS256', 'ES256', 'EdDSA'];
  } else if (config.publicKey) {
    const algorithm = config.algorithms?.[0] ?? 'RS256';
    key = await importSPKI(config.publicKey, algorithm);
    algorithms = [algorithm];
  } else if (config.secret) {
    key = new TextEncoder().encode(config.secret);
    algorithms = config.algorithms ?? ['HS256'];
  } else {
    throw new TypeError('JWT verification needs JWT_JWKS_URL, JWT_PUBLIC_KEY or JWT_SECRET');
  }
  return async (token) => {
    try {
      const { payload, protectedHeader } = await jwtVerify(token, key as JWTVerifyGetKey, {
        issuer: config.issuer,
        audience: config.audience,
        clockTolerance: config.clockToleranceSec,
        algorithms: [...algorithms],
        // A token that never expires is refused; so is one issued in the future.
        requiredClaims: ['exp', 'sub'],
      });
      // An access token: `typ` absent, JWT or at+jwt (RFC 9068); ID tokens, logout tokens and the like are not.
      const typ = protectedHeader.typ?.toLowerCase().replace(/^application\//, '');
      if (typ !== undefined && typ !== 'jwt' && typ !== 'at+jwt') return { ok: false, reason: 'invalid' };
      const now = Math.floor(Date.now() / 1000);
      if (typeof payload.iat === 'number' && payload.iat > now + config.clockToleranceSec) {
        return { ok: false, reason: 'invalid' };
      }
      const lifetime = (payload.exp as number) - (typeof payload.iat === 'number' ? payload.iat : now);
      if (lifetime > config.maxLifetimeSec) return { ok: false, reason: 'invalid' };
      // The subject follows the CLI's rules: 1-200 characters, no controls (U+0000 included), no outer space.
      if (typeof payload.sub !== 'string') return { ok: false, reason: 'invalid' };
      try {
        assertValidSubject(payload.sub);
      } catch {
        return { ok: false, reason: 'invalid' };
      }
      return { ok: true, principal: { subject: payload.sub, scopes: scopesOf(payload.scope ?? payload.scp) } };
    } catch (error) {
      if (error instanceof errors.JWTExpired) return { ok: false, reason: 'expired' };
      return { ok: false, reason: 'invalid' };
    }
  };
}
