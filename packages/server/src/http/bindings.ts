// Binds the contract to code: every operation to its handler and its security handlers, checked at start-up, and
// the adaptor that hands fastify-openapi-glue one route per operationId.
//
// Authentication runs as the route's onRequest hook rather than through glue's own `securityHandlers` option: glue
// runs those after the body has been parsed and validated, so a caller without a token would learn the body rules
// from a 400 (and pay for parsing) before hearing 401. onRequest runs before the body is read.

import { OPEN_OPERATIONS } from '@plant-store/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyOpenapiGlueOptions } from 'fastify-openapi-glue';
import type { SecurityHandler } from '../auth/bearer.js';
import type { Store } from '../store/store.js';
import { bodyCheck } from './body-check.js';
import type { Contract } from './openapi-document.js';
import { queryNamesHook } from './query-names.js';

/**
 * A handler as the adaptor calls it. Each real handler takes its own operation's input type; the map of them can
 * only be held under this common, input-erased signature (`never` accepts every handler), and the adaptor passes
 * the input Fastify has validated against that very operation.
 */
export type BoundHandler = (input: never, deps: { store: Store }) => Promise<BoundResult>;

type BoundResult = { status: number; headers?: Record<string, string> } & (
  | { body: unknown }
  | { json: string | Uint8Array }
);

/** Fails start-up, naming what is missing, unless every operation has a handler and every scheme a security handler. */
export function checkBindings(
  contract: Contract,
  handlers: Readonly<Record<string, unknown>>,
  securityHandlers: Readonly<Record<string, unknown>>,
): void {
  const problems: string[] = [];
  const declared = new Set<string>(contract.operations.map((operation) => operation.operationId));
  const open = new Set<string>(OPEN_OPERATIONS);
  for (const operation of contract.operations) {
    if (typeof handlers[operation.operationId] !== 'function') {
      problems.push(`operation "${operation.operationId}" (${operation.method} ${operation.path}) has no handler`);
    }
    for (const scheme of operation.security) {
      if (typeof securityHandlers[scheme] !== 'function') {
        problems.push(`security scheme "${scheme}" of operation "${operation.operationId}" has no security handler`);
      }
    }
    // Handlers of secured operations are typed to receive a principal, open ones to receive null (core's handler.ts).
    if ((operation.security.length === 0) !== open.has(operation.operationId)) {
      problems.push(
        `operation "${operation.operationId}" is ${operation.security.length === 0 ? 'open' : 'secured'} in ` +
          'the contract but not in OPEN_OPERATIONS (packages/core/src/handlers/handler.ts)',
      );
    }
  }
  for (const name of Object.keys(handlers)) {
    if (!declared.has(name)) problems.push(`handler "${name}" matches no operationId in the contract`);
  }
  if (problems.length > 0) {
    throw new Error(`The server cannot start: ${problems.join('; ')}. Bind them in packages/core/src/handlers.`);
  }
}

/** glue's operationResolver: the route options of one operation (glue fills in method, url and schema itself). */
export function operationResolver(
  contract: Contract,
  handlers: Readonly<Record<string, BoundHandler>>,
  securityHandlers: Readonly<Record<string, SecurityHandler>>,
  store: Store,
): FastifyOpenapiGlueOptions['operationResolver'] {
  const byOperationId = new Map(contract.operations.map((operation) => [operation.operationId as string, operation]));
  const checkBody = bodyCheck(store);
  const resolve = (operationId: string) => {
    // checkBindings has made sure every operationId of the contract has an operation, a handler and its schemes.
    const operation = byOperationId.get(operationId)!;
    const handler = handlers[operationId]!;
    // Only routes with a body get the hook: a hook that does nothing still costs every request a turn.
    const check = checkBody(operation);
    // The route's own path, the same on every request of the route (and of its HEAD twin): read once, since
    // Fastify's routeOptions builds a new object on every read.
    let routePath: string | undefined;
    return {
      // The token first (a caller without one learns nothing of the rules), then the query's names.
      onRequest: [
        ...operation.security.map((scheme) => securityHandlers[scheme]!(operationId, operation.scope)),
        queryNamesHook(operation),
      ],
      config: { operationId },
      ...(check ? { preValidation: check.preValidation } : {}),
      // A keyed operation's body check decides its validation refusals itself (body-check.ts), in the handler.
      ...(check?.attachValidation ? { attachValidation: true } : {}),
      // Not async: a handler that returns the reply (or a promise of it) has Fastify await the reply, a thenable
      // that waits for the response's end (listeners on it, and a promise held open per request). Sent, it returns
      // nothing, so Fastify does nothing more with it.
      handler: (request: FastifyRequest, reply: FastifyReply): void => {
        // The one error handler answers what fails (error-handler.ts), as for an error thrown by an async handler.
        const fail = (error: unknown) => reply.send(error);
        if (request.validationError) {
          check!.refuseInvalid(request, reply, request.validationError).catch(fail);
          return;
        }
        routePath ??= request.routeOptions.url ?? '';
        const input = {
          // null only for open operations, whose handlers are typed to take null (see PrincipalOf).
          principal: request.principal,
          body: request.body,
          params: request.params,
          query: request.query ?? {},
          headers: request.headers,
          // The route's own path, never the request target (absolute-form or with a '#', it is the client's).
          path: routePath,
        };
        // Cast: Fastify has validated `input` against this operation's schemas, which is the handler's input type;
        // the compiler cannot follow that from a runtime operationId.
        let answer: Promise<BoundResult>;
        try {
          answer = handler(input as never, { store });
        } catch (error) {
          answer = Promise.reject(error);
        }
        answer.then((result) => {
          try {
            reply.code(result.status);
            if (result.headers) reply.headers(result.headers);
            if ('json' in result) reply.type('application/json; charset=utf-8').send(result.json);
            else reply.send(result.body);
          } catch (error) {
            fail(error);
          }
        }, fail);
      },
    };
  };
  // Cast: glue types the resolver as returning full route options (method, url, schema included), which glue
  // itself fills in from the document; the partial options above are what it merges them into.
  return resolve as unknown as FastifyOpenapiGlueOptions['operationResolver'];
}
