// Bearer authentication (RFC 6750) and scope checks, run as an onRequest hook: before the body is read or
// validated, so an unauthenticated caller learns nothing about the body rules. The header's form and the answers'
// words are @plant-store/core's bearer rules, which the SDK's testing kit runs too.

import type { ApiError, Scope } from '@plant-store/contract';
import {
  bearerTokenOf,
  insufficientScope,
  invalidRequest,
  queryTokenRefused,
  TOKEN_NOT_RECOGNISED,
  unauthorized,
} from '@plant-store/core';
import type { FastifyRequest, onRequestHookHandler } from 'fastify';
import type { Store } from '../store/store.js';
import type { JwtVerifier } from './jwt.js';
import { looksLikeJwt } from './jwt-shape.js';
import type { Principal } from './principal.js';
import { authenticateToken, type TokenCheck } from './tokens.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
  }
}

function hasQueryToken(request: FastifyRequest): boolean {
  const query = request.query as Record<string, unknown> | undefined;
  return query !== undefined && query !== null && Object.hasOwn(query, 'access_token');
}

// A revoked token is answered exactly like one that never existed (see TOKEN_NOT_RECOGNISED).
const REASONS = {
  unknown: TOKEN_NOT_RECOGNISED,
  revoked: TOKEN_NOT_RECOGNISED,
  expired: 'the bearer token has expired',
  invalid: 'the bearer token is not valid: check its signature, issuer, audience and dates',
} as const;

export type SecurityHandler = (operationId: string, scope: Scope | null) => onRequestHookHandler;

/** The security handlers by the contract's security scheme name. */
export type SecurityHandlers = Readonly<Record<'bearerAuth', SecurityHandler>>;

type Checked = Awaited<ReturnType<JwtVerifier>> | TokenCheck;

/**
 * The security handlers, keyed by the contract's security scheme names. JWTs go to `verifyJwt` when given.
 * A callback hook, not an async one: a token the store holds in memory (most requests) is checked and the request
 * goes on in the same turn, with no promise to settle; only a lookup in the database waits.
 */
export function createSecurityHandlers(store: Store, verifyJwt: JwtVerifier | null): SecurityHandlers {
  return {
    bearerAuth: (operationId, scope) => {
      const finish = (request: FastifyRequest, result: Checked): ApiError | undefined => {
        if (!result.ok) return unauthorized(REASONS[result.reason], 'invalid_token');
        if (scope && !result.principal.scopes.includes(scope)) return insufficientScope(operationId, scope);
        request.principal = { subject: result.principal.subject, scopes: result.principal.scopes };
        return undefined;
      };
      return function bearerAuth(request, _reply, done) {
        let token: string;
        try {
          token = bearerToken(request);
        } catch (error) {
          return done(error as ApiError);
        }
        const result = verifyJwt && looksLikeJwt(token) ? verifyJwt(token) : authenticateToken(store.tokens, token);
        if (!(result instanceof Promise)) return done(finish(request, result));
        result.then(
          (checked) => done(finish(request, checked)),
          (error: Error) => done(error),
        );
      };
    },
  };
}

/** The bearer token of the request's one Authorization header; throws the 400 or 401 that says what is wrong. */
function bearerToken(request: FastifyRequest): string {
  if (hasQueryToken(request)) throw queryTokenRefused();
  // Node keeps only the first of several Authorization headers; which one counts must not be a guess.
  const raw = request.raw.rawHeaders;
  let authorizations = 0;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    if (name.length === 13 && name.toLowerCase() === 'authorization') authorizations++;
  }
  if (authorizations > 1) throw invalidRequest('send exactly one Authorization header');
  return bearerTokenOf(request.headers.authorization);
}
