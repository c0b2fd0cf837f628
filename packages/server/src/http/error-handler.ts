// Failures become HTTP answers in the contract's Error shape ({ error: status, message }) here: thrown errors through
// the error handler, and the answers written without one (404/405, readiness, unparsable HTTP) through sendError and
// errorBodyText. Framework and plugin errors are mapped here too; 5xx details go to the log, never to the client.

import {
  ApiError,
  BODY_EMPTY_MESSAGE,
  BODY_TOO_LARGE_MESSAGE,
  type BrokenRule,
  describeBrokenRule,
  detailOfBrokenRule,
  type ErrorBody,
  type ErrorDetail,
  JsonBodyError,
  NOT_JSON_MESSAGE,
} from '@plant-store/contract';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { StoreUnavailableError } from '../store/store.js';

interface AjvIssue {
  keyword: string;
  instancePath: string;
  message?: string;
  params: Record<string, unknown>;
  schema?: unknown;
}

// An Ajv issue as the contract's request rules name it; they word it (the same words the testing kit uses).
function brokenRuleOf(issue: AjvIssue, context: string): BrokenRule {
  const unknown = issue.params.unevaluatedProperty ?? issue.params.additionalProperty;
  return {
    location: LOCATIONS[context] ?? context,
    pointer: issue.instancePath.split('/').slice(1).join('.'),
    rule: unknown === undefined ? issue.keyword : 'unknownField',
    ...(issue.keyword === 'required' ? { field: String(issue.params.missingProperty) } : {}),
    ...(unknown === undefined ? {} : { field: String(unknown) }),
    ...(issue.params.type === undefined ? {} : { type: String(issue.params.type) }),
    ...(typeof issue.params.limit === 'number' ? { limit: issue.params.limit } : {}),
    ...(issue.params.pattern === undefined ? {} : { pattern: String(issue.params.pattern) }),
    ...(issue.message === undefined ? {} : { message: issue.message }),
  };
}

const LOCATIONS: Record<string, string> = { body: 'body', querystring: 'query', params: 'path', headers: 'header' };

// Fastify's own errors, by code, with the status and the message a client can act on.
const FRAMEWORK_ERRORS: Record<string, { status: number; message: string }> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, message: NOT_JSON_MESSAGE },
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, message: BODY_TOO_LARGE_MESSAGE },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, message: BODY_EMPTY_MESSAGE },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, message: 'the Content-Length header does not match the body' },
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, message: 'the body is not valid JSON' },
  FST_ERR_BAD_URL: { status: 400, message: 'the request URL is malformed (a bad percent-escape?)' },
};

function toErrorBody(error: unknown): {
  status: number;
  message: string;
  headers: Record<string, string>;
  details?: ErrorDetail[];
} {
  if (error instanceof ApiError) {
    const { status, message, headers, details } = error;
    return { status, message, headers: { ...headers }, ...(details ? { details: [...details] } : {}) };
  }
  if (error instanceof JsonBodyError) return { status: 400, message: error.message, headers: {} };
  if (error instanceof StoreUnavailableError) {
    return { status: 503, message: 'the database is unavailable; retry shortly', headers: { 'retry-after': '1' } };
  }
  const fastifyError = error as Partial<FastifyError> & { validation?: AjvIssue[]; validationContext?: string };
  if (fastifyError.validation?.[0]) {
    const context = fastifyError.validationContext ?? 'body';
    const broken = brokenRuleOf(fastifyError.validation[0], context);
    // ErrorDetail's locations are body, query and path: a header's problem is told in `message` alone.
    if (context === 'headers') return { status: 400, message: describeBrokenRule(broken), headers: {} };
    return { status: 400, message: describeBrokenRule(broken), headers: {}, details: [detailOfBrokenRule(broken)] };
  }
  const known = fastifyError.code ? FRAMEWORK_ERRORS[fastifyError.code] : undefined;
  if (known) return { status: known.status, message: known.message, headers: {} };
  const status = fastifyError.statusCode;
  // Other plugins' client errors (rate limit, CORS) carry a status and a message meant for clients.
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return { status, message: fastifyError.message ?? 'the request was refused', headers: {} };
  }
  return {
    status: 500,
    message: 'internal server error; the request id identifies it in the service log',
    headers: {},
  };
}

/** The answer to `error` as the error handler gives it: its status, its message, and its Error body as JSON text. */
export function errorAnswer(error: unknown): { status: number; message: string; json: string } {
  const { status, message, details } = toErrorBody(error);
  const body: ErrorBody = { error: status, message, ...(details ? { details } : {}) };
  return { status, message, json: JSON.stringify(body) };
}

/** The Error body as JSON text, for answers written straight to a socket (see client-errors.ts). */
export function errorBodyText(status: number, message: string): string {
  const body: ErrorBody = { error: status, message };
  return JSON.stringify(body);
}

/** Answers `status` with the Error body; for handlers that answer an error without throwing (404, 405, 503). */
export function sendError(reply: FastifyReply, status: number, message: string, details?: ErrorDetail[]): FastifyReply {
  const body: ErrorBody = { error: status, message, ...(details ? { details } : {}) };
  return reply.code(status).type('application/json; charset=utf-8').send(body);
}

/**
 * Fastify's `frameworkErrors`: what it refuses before routing (a URL it cannot decode, /plants/%zz) is answered in
 * the Error shape too. No hook has run yet, so the headers every answer carries are set here.
 */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  reply.header('x-request-id', request.id);
  reply.header('x-content-type-options', 'nosniff');
  reply.header('cache-control', 'no-store');
  const known = FRAMEWORK_ERRORS[error.code];
  return sendError(reply, known?.status ?? 400, known?.message ?? 'the request is malformed');
}

function answerError(request: FastifyRequest, reply: FastifyReply, error: unknown): FastifyReply {
  const { status, message, headers, details } = toErrorBody(error);
  if (status >= 500) request.log.error({ err: error }, 'request failed');
  else request.log.info({ status, reason: message }, 'request refused');
  reply.headers(headers);
  return sendError(reply, status, message, details);
}

/** The one error handler: whatever a route or a hook throws is answered in the Error shape. */
export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: unknown, request: FastifyRequest, reply: FastifyReply) =>
    answerError(request, reply, error),
  );
}
