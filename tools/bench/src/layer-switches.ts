// The bench's own switches for pricing layers that no configuration turns off (`pnpm bench --layers`): each named
// layer becomes one of buildApp's options (ServerOptions, passed to runServer by variant-server.ts), wrapping or
// replacing what the service does. Security-weakening variants exist only here, in processes the bench starts.

import type { ServerOptions } from '@plant-store/server';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** The layers these switches turn off, by the names BENCH_LAYERS_OFF takes. */
export const SWITCHED_LAYERS = [
  'security-headers',
  'request-ids',
  'auth',
  'validation',
  'serialization',
  'webhook-worker',
] as const;
export type SwitchedLayer = (typeof SWITCHED_LAYERS)[number];

type SecurityHandlers = Parameters<NonNullable<ServerOptions['wrapSecurityHandlers']>>[0];
type Principal = NonNullable<FastifyRequest['principal']>;

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

/** `auth`: the principal remembered per operation and Authorization header after its first full check. */
function rememberPrincipals(handlers: SecurityHandlers): SecurityHandlers {
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
}

/** buildApp's options with the named layers off; none named, the service as it is. */
export function switchedOff(off: readonly SwitchedLayer[]): ServerOptions {
  let next = 0;
  const options: ServerOptions = {
    answerHeaders: { security: !off.includes('security-headers'), requestId: !off.includes('request-ids') },
    webhookWorker: !off.includes('webhook-worker'),
  };
  if (off.includes('request-ids')) options.genReqId = () => String(++next);
  if (off.includes('auth')) options.wrapSecurityHandlers = rememberPrincipals;
  if (off.includes('validation') || off.includes('serialization')) {
    options.configure = (app) => {
      if (off.includes('validation')) app.setValidatorCompiler(passThrough as never);
      if (off.includes('serialization')) app.setSerializerCompiler(() => (data) => JSON.stringify(data));
    };
  }
  return options;
}

/** The layer names in BENCH_LAYERS_OFF's comma-separated text; an unknown one is an error. */
export function parseLayers(text: string | undefined): SwitchedLayer[] {
  const names = (text ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const unknown = names.filter((name) => !(SWITCHED_LAYERS as readonly string[]).includes(name));
  if (unknown.length > 0) {
    throw new Error(`BENCH_LAYERS_OFF: unknown layers ${unknown.join(', ')} (known: ${SWITCHED_LAYERS.join(', ')})`);
  }
  return names as SwitchedLayer[];
}
