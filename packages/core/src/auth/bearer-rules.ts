// Bearer tokens (RFC 6750) as the service reads and refuses them: the Authorization header's form, and the 400, 401
// and 403 answers in the service's words. The server's bearer hook and the SDK's testing kit both run these; how a
// token is looked up (opaque tokens, JWTs, the kit's own) stays with each.
import { ApiError, type Scope } from '@plant-store/contract';

const REALM = 'realm="plant-store"';
// RFC 6750 b64token.
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i;

/**
 * What the service answers for a token it does not know, and for a revoked one alike, so a caller holding a leaked
 * or guessed token learns nothing about whether it was ever real.
 */
export const TOKEN_NOT_RECOGNISED = 'the bearer token is not recognised';

/** A 401 with its challenge; `error` (RFC 6750 3.1) names what was wrong with a token that was sent. */
export function unauthorized(message: string, error?: string): ApiError {
  const challenge = error ? `Bearer ${REALM}, error="${error}", error_description="${message}"` : `Bearer ${REALM}`;
  return new ApiError(401, message, { 'www-authenticate': challenge });
}

/** A 400 `invalid_request`: the request carries its credentials in a way the service refuses. */
export function invalidRequest(message: string): ApiError {
  return new ApiError(400, message, { 'www-authenticate': `Bearer ${REALM}, error="invalid_request"` });
}

/** The 400 for a token in the query string (`access_token`), refused before the header is read. */
export const queryTokenRefused = () =>
  invalidRequest(
    'tokens in the query string are refused; send the token in the Authorization header as "Bearer <token>"',
  );

/** The bearer token of an Authorization header; throws the 401 that says what is wrong with it. */
export function bearerTokenOf(header: string | null | undefined): string {
  if (!header) throw unauthorized('missing Authorization header; send "Authorization: Bearer <token>"');
  if (!/^bearer(\s|$)/i.test(header)) throw unauthorized('the Authorization header must use the Bearer scheme');
  const match = BEARER.exec(header);
  if (!match?.[1]) throw unauthorized('the bearer token is malformed', 'invalid_token');
  return match[1];
}

/** The 403 for a token without the scope `operationId` needs. */
export function insufficientScope(operationId: string, scope: Scope): ApiError {
  return new ApiError(403, `this token lacks the "${scope}" scope that ${operationId} needs`, {
    'www-authenticate': `Bearer ${REALM}, error="insufficient_scope", scope="${scope}"`,
  });
}
