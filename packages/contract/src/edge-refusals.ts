// The words of the refusals the service gives at its HTTP edge, before any rule of an operation is checked: a path or
// method the contract does not have, a body that is not JSON or is too large, and the per-principal rate limit. The
// server's http/ folder and the SDK's testing kit both answer with these, so a client's tests see the service's
// very messages. No Node or DOM APIs.
import { callerText } from './caller-text.js';
import { BODY_LIMIT_BYTES } from './generated/operations.js';
import { SERVED_CONTRACT_PATH } from './served-contract.js';

/** The 404's message for a path no operation of the contract has (the path cut short, see caller-text.ts). */
export const noRouteMessage = (method: string, path: string) =>
  `no route ${method} ${callerText(path)}; see ${SERVED_CONTRACT_PATH} for the API`;

/** The 405's message for a path the contract has under other methods (`methods`, also sent as Allow). */
export const methodNotAllowedMessage = (method: string, path: string, methods: readonly string[]) =>
  `${method} is not allowed on ${callerText(path)}; use ${methods.join(' or ')}`;

/**
 * The 400's message for a request target holding a "#": a fragment is no part of one (RFC 9112 section 3.2) and stays
 * with the client (RFC 9110 section 7.1). Only a raw HTTP client can send it: fetch never does.
 */
export const FRAGMENT_IN_TARGET_MESSAGE = 'the request target holds a fragment ("#"); a fragment stays with the client';

/** The 415's message for a body sent without `Content-Type: application/json`. */
export const NOT_JSON_MESSAGE = 'the request body must be sent with "Content-Type: application/json"';

/** The 413's message for a body over the contract's `x-body-limit-bytes` (read, or announced by Content-Length). */
export const BODY_TOO_LARGE_MESSAGE = `the request body is larger than ${BODY_LIMIT_BYTES} bytes`;

/** The 400's message for a body of zero bytes sent to an operation that takes one. */
export const BODY_EMPTY_MESSAGE = 'the body is empty; send a JSON object';

/** The 400's message for a body whose bytes are not UTF-8 (JSON's only encoding, RFC 8259). */
export const BODY_NOT_UTF8_MESSAGE = 'the body is not valid UTF-8';

/** The 429's message for a principal over `max` requests in its window, which ends in `seconds`. */
export const rateLimitMessage = (max: number, seconds: number | string) =>
  `rate limit of ${max} requests exceeded; retry in ${seconds} seconds`;
