// Answers requests no route matched: 405 with Allow when the path exists under other methods, 404 otherwise.
import { methodNotAllowedMessage, noRouteMessage, pathPattern } from '@plant-store/contract';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sendError } from './error-handler.js';
import type { ContractOperation } from './openapi-document.js';

export function registerNotFoundHandler(app: FastifyInstance, operations: readonly ContractOperation[]): void {
  const paths = new Map<string, { pattern: RegExp; methods: string[] }>();
  for (const operation of operations) {
    const entry = paths.get(operation.path) ?? { pattern: pathPattern(operation.path).pattern, methods: [] };
    entry.methods.push(operation.method);
    paths.set(operation.path, entry);
  }
  const answer = (request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split('?')[0] ?? '';
    for (const { pattern, methods } of paths.values()) {
      if (pattern.test(path)) {
        reply.header('allow', methods.join(', '));
        return sendError(reply, 405, methodNotAllowedMessage(request.method, path, methods));
      }
    }
    return sendError(reply, 404, noRouteMessage(request.method, path));
  };
  // Answered in onRequest, before any body is read or parsed: a body sent to no route costs nothing.
  app.addHook('onRequest', (request, reply, done) => {
    if (!request.is404) return done();
    // An answer sent from a callback hook ends the request there; done() is not called after it.
    answer(request, reply);
  });
  app.setNotFoundHandler(answer);
}
