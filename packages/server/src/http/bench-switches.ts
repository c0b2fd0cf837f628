// What PLANT_STORE_BENCH_OFF (config.ts) changes in the app, for `pnpm bench --layers` to price each layer: every
// switch is a no-op unless named. A measuring aid, never for a deployment (the app logs a warning naming them).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SecurityHandler } from '../auth/bearer.js';
import type { Principal } from '../auth/principal.js';
import type { BenchLayer } from '../config.js';

type SecurityHandlers = Readonly<Record<'bearerAuth', SecurityHandler>>;

export interface BenchSwitches {
  /** `request-ids`: a counter instead of a UUID (undefined keeps the real genReqId). */
  requestId: (() => string) | undefined;
  /** `auth`: the principal remembered per operation and Authorization header after its first full check. */
  securityHandlers(handlers: SecurityHandlers): SecurityHandlers;
  /** `validation`, `serialization`: compilers that check nothing, and JSON.stringify. */
  register(app: FastifyInstance): void;
}

/** Query and path values as the handlers expect them: integer text as numbers, nothing else checked. */
function passThrough({ schema, httpPart }: { schema: unknown; httpPart?: string }) {
  const properties = (schema as { properties?: Record<string, { type?: string; default?: unknown }> }).properties ?? {};
  return (data: unknown) => {
    if (httpPart === 'body' || data === null || typeof data !== 'object') return true;
    const record = data as Record<string, unknown>;
    for (const [name, property] of Object.entries(properties)) {
      if (record[name] === undefined && property.default !== undefined) record[name] = property.default;
      if (property.type === 'integer' && typeof record[name] === 'string') record[name] = Number(record[name]);
    }
    return true;
  };
}

export function benchSwitches(off: readonly BenchLayer[]): BenchSwitches {
  let next = 0;
  return {
    requestId: off.includes('request-ids') ? () => String(++next) : undefined,
    securityHandlers(handlers) {
      if (!off.includes('auth')) return handlers;
      const remembered = new Map<string, Principal>();
      return {
        bearerAuth: (operationId, scope) => {
          const check = handlers.bearerAuth(operationId, scope);
          return function rememberedAuth(
            this: FastifyInstance,
            request: FastifyRequest,
            reply: FastifyReply,
            done: (error?: Error) => void,
          ) {
            const key = `${operationId} ${request.headers.authorization}`;
            const known = remembered.get(key);
            if (known) {
              request.principal = known;
              return done();
            }
            check.call(this, request, reply, (error?: Error) => {
              if (!error && request.principal) remembered.set(key, request.principal);
              done(error);
            });
          };
        },
      };
    },
    register(app) {
      if (off.includes('validation')) app.setValidatorCompiler(passThrough as never);
      if (off.includes('serialization')) app.setSerializerCompiler(() => (data) => JSON.stringify(data));
    },
  };
}
