// The composition root: builds the Fastify app from the contract, the config and a store. It never listens
// (server.ts does), so tests drive it with inject or start their own listener.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import cors from '@fastify/cors';
import rateLimit from '@fastify/rate-limit';
import underPressure from '@fastify/under-pressure';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import openapiGlue, { type FastifyOpenapiGlueOptions } from 'fastify-openapi-glue';
import { Redis } from 'ioredis';
import { createAnonymousLimiter } from './anonymous-limit.js';
import { createSecurityHandlers, type SecurityHandler } from './auth.js';
import type { Config } from './config.js';
import { type Contract, loadContract } from './contract.js';
import { registerErrorHandler, sendError } from './error-handler.js';
import { ApiError } from './errors.js';
import type { Handler } from './handlers/handler.js';
import { handlers as defaultHandlers } from './handlers/index.js';
import { JsonBodyError, parseJsonExact } from './json-body.js';
import { registerNotFoundHandler } from './not-found.js';
import { registerOperationalRoutes } from './operational-routes.js';
import { createFallbackStore, type RateLimitBackend } from './rate-limit-store.js';
import { createJwtVerifier } from './services/jwt.js';
import type { Store } from './store/store.js';
import { createValidatorCompiler } from './validation.js';

/** The contract's limit on request bodies, in bytes. */
export const BODY_LIMIT = 16_384;

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export interface AppOptions {
  config: Config;
  store: Store;
  /** The contract to serve; openapi.yaml unless a test passes another. */
  contract?: Contract;
  /** Handlers by operationId; the real ones unless a test passes others. */
  handlers?: Readonly<Record<string, Handler<never>>>;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

function requestId(request: IncomingMessage): string {
  const incoming = request.headers['x-request-id'];
  return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
}

/** Fails start-up, naming what is missing, unless every operation has a handler and every scheme a security handler. */
export function checkBindings(
  contract: Contract,
  handlers: Readonly<Record<string, unknown>>,
  securityHandlers: Readonly<Record<string, unknown>>,
): void {
  const problems: string[] = [];
  const declared = new Set(contract.operations.map((operation) => operation.operationId));
  for (const operation of contract.operations) {
    if (typeof handlers[operation.operationId] !== 'function') {
      problems.push(`operation "${operation.operationId}" (${operation.method} ${operation.path}) has no handler`);
    }
    for (const scheme of operation.securitySchemes) {
      if (typeof securityHandlers[scheme] !== 'function') {
        problems.push(`security scheme "${scheme}" of operation "${operation.operationId}" has no security handler`);
      }
    }
  }
  for (const name of Object.keys(handlers)) {
    if (!declared.has(name)) problems.push(`handler "${name}" matches no operationId in the contract`);
  }
  if (problems.length > 0) {
    throw new Error(`The server cannot start: ${problems.join('; ')}. Bind them in packages/server/src/handlers.`);
  }
}

function decodedKey(key: string): string | null {
  try {
    return decodeURIComponent(key.replaceAll('+', ' ')).toLowerCase();
  } catch {
    return null;
  }
}

/** The URL for the log: the value of `access_token` (however its name is percent-encoded) is redacted. */
export function redactQuery(url: string): string {
  const at = url.indexOf('?');
  if (at === -1) return url;
  const query = url
    .slice(at + 1)
    .split('&')
    .map((part) => {
      const equals = part.indexOf('=');
      const key = equals === -1 ? part : part.slice(0, equals);
      const decoded = decodedKey(key);
      // A name that does not decode is redacted too: it could hide the token's name.
      return decoded === null || decoded.includes('access_token') ? `${key}=[redacted]` : part;
    });
  return `${url.slice(0, at)}?${query.join('&')}`;
}

// Node's own answer to a request it cannot parse, in the contract's Error shape instead of Fastify's.
function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  // An earlier request on this connection is still being answered (pipelining): answer in order, never over it.
  const inFlight = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
  if (inFlight && !inFlight.writableFinished) {
    inFlight.once('finish', () => clientErrorHandler(error, socket));
    inFlight.once('close', () => {
      if (!inFlight.writableFinished) socket.destroy();
    });
    return;
  }
  const [status, reason, message] =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'Request Timeout', 'the request took too long to arrive']
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'Request Header Fields Too Large', 'the request headers are too large']
        : [400, 'Bad Request', 'the request could not be parsed as HTTP'];
  const body = JSON.stringify({ error: status, message });
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${randomUUID()}\r\nX-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${body}`,
  );
}

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { config, store } = options;
  const contract = options.contract ?? loadContract();
  const handlers = options.handlers ?? (defaultHandlers as unknown as Readonly<Record<string, Handler<never>>>);
  const verifyJwt = config.jwt ? await createJwtVerifier(config.jwt) : null;
  const securityHandlers: Readonly<Record<string, SecurityHandler>> = createSecurityHandlers(store, verifyJwt);
  checkBindings(contract, handlers, securityHandlers);

  const app = Fastify({
    logger:
      config.logLevel === 'silent'
        ? false
        : {
            level: config.logLevel,
            serializers: {
              // A token sent in the query string is refused, and must not reach the log either.
              req: (request: FastifyRequest) => ({
                method: request.method,
                url: redactQuery(request.url),
                remoteAddress: request.ip,
              }),
            },
          },
    genReqId: requestId,
    requestIdHeader: false,
    bodyLimit: BODY_LIMIT,
    exposeHeadRoutes: true,
    return503OnClosing: false,
    trustProxy: config.trustProxy,
    clientErrorHandler,
    // A URL Fastify cannot decode (/plants/%zz) is answered in the Error shape with the usual headers.
    frameworkErrors: (error, request, reply) => {
      reply.header('x-request-id', request.id);
      reply.header('x-content-type-options', 'nosniff');
      reply.header('cache-control', 'no-store');
      const bad = error.code === 'FST_ERR_BAD_URL';
      return sendError(
        reply,
        400,
        bad ? 'the request URL is malformed (a bad percent-escape?)' : 'the request is malformed',
      );
    },
    serverFactory: (handler: (req: IncomingMessage, res: ServerResponse) => void) =>
      createServer(
        {
          requestTimeout: config.requestTimeoutMs,
          headersTimeout: Math.min(config.requestTimeoutMs, 60_000),
          keepAliveTimeout: config.keepAliveTimeoutMs,
          // Check timeouts every second rather than Node's default 30 s, so slow clients are cut off on time.
          connectionsCheckingInterval: 1_000,
        },
        handler,
        // With a listener here Node no longer answers `Expect: 100-continue` by itself: see sendContinue below.
      ).on('checkContinue', handler),
  });

  app.decorateRequest('principal', null);
  app.setValidatorCompiler(createValidatorCompiler());
  registerErrorHandler(app);

  const byOperationId = new Map(contract.operations.map((operation) => [operation.operationId, operation]));
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    // UTF-8 is JSON's only encoding (RFC 8259): another charset is refused, invalid UTF-8 bytes too (never replaced).
    const charset = /;\s*charset\s*=\s*"?([^";\s]*)/i.exec(request.headers['content-type'] ?? '')?.[1];
    if (charset !== undefined && charset.toLowerCase() !== 'utf-8' && charset.toLowerCase() !== 'utf8') {
      return done(new ApiError(415, `the request body must be UTF-8 JSON; charset "${charset}" is not accepted`));
    }
    const bytes = body as Buffer;
    if (bytes.length === 0) {
      // No body is fine for an operation that takes none (DELETE), whatever Content-Type says.
      const operationId = (request.routeOptions.config as { operationId?: string } | undefined)?.operationId;
      if (operationId !== undefined && !byOperationId.get(operationId)?.bodyRequired) return done(null, undefined);
      return done(new JsonBodyError('the body is empty; send a JSON object'), undefined);
    }
    let text: string;
    try {
      text = UTF8.decode(bytes);
    } catch {
      return done(new JsonBodyError('the body is not valid UTF-8'), undefined);
    }
    try {
      done(null, parseJsonExact(text));
    } catch (error) {
      done(error as Error, undefined);
    }
  });

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    reply.header('x-content-type-options', 'nosniff');
    if (!request.url.startsWith('/docs')) reply.header('cache-control', 'no-store');
  });
  // Unknown routes and refused methods are answered here, before any body is read or parsed.
  registerNotFoundHandler(app, contract.operations);
  // An answer sent while the client is still sending its body (an early 401, 404, 413...) closes the connection:
  // the rest of the body is never read, and no second answer (e.g. a 408) can follow on that connection.
  app.addHook('onSend', async (request, reply) => {
    const raw = request.raw;
    if (
      !raw.complete &&
      (raw.headers['transfer-encoding'] !== undefined || Number(raw.headers['content-length']) > 0)
    ) {
      reply.header('connection', 'close');
    }
  });

  if (config.maxEventLoopDelayMs > 0) {
    // Load shedding: while the event loop lags beyond the bound, answer 503 at once rather than queue without end.
    // The lag of start-up and warm-up (compiling the contract, first requests) is not overload: shedding starts
    // five seconds after ready.
    let readyAt = Number.POSITIVE_INFINITY;
    app.addHook('onReady', async () => {
      readyAt = Date.now();
    });
    await app.register(underPressure, {
      maxEventLoopDelay: config.maxEventLoopDelayMs,
      sampleInterval: 100,
      pressureHandler: (_request, reply) => {
        if (Date.now() - readyAt < 5_000) return undefined;
        reply.code(503).header('retry-after', '1').type('application/json; charset=utf-8');
        return { error: 503, message: 'the service is overloaded; retry shortly' } as never;
      },
    });
  }

  if (config.corsOrigins.length > 0) {
    await app.register(cors, {
      origin: config.corsOrigins.includes('*') ? '*' : [...config.corsOrigins],
      methods: ['GET', 'POST', 'DELETE'],
      allowedHeaders: ['Authorization', 'Content-Type', 'X-Request-Id'],
      exposedHeaders: ['Link', 'Retry-After', 'X-Request-Id', 'WWW-Authenticate'],
      maxAge: 600,
    });
  }

  let rateLimitBackend: RateLimitBackend | null = null;
  if (config.rateLimit) {
    const { anonymousMax, windowMs } = config.rateLimit;
    if (anonymousMax > 0) {
      // Requests that end without a principal (no or bad token, unknown route, refused method) count per address.
      const anonymous = createAnonymousLimiter(anonymousMax, windowMs);
      const exempt = (url: string) => url === '/healthz' || url === '/readyz';
      const refusal = (wait: number) =>
        JSON.stringify({
          error: 429,
          message: `rate limit of ${anonymousMax} requests without a valid token exceeded; retry in ${wait} seconds`,
        });
      app.addHook('onRequest', async (request, reply) => {
        if (request.headers.authorization !== undefined || exempt(request.url)) return;
        if (!anonymous.exceeded(request.ip)) return;
        const wait = anonymous.hit(request.ip);
        return reply
          .code(429)
          .header('retry-after', String(wait))
          .type('application/json; charset=utf-8')
          .send(refusal(wait));
      });
      app.addHook('onSend', async (request, reply, payload) => {
        if (request.principal !== null || reply.statusCode === 429 || exempt(request.url)) return payload;
        const wait = anonymous.hit(request.ip);
        if (wait === 0) return payload;
        reply.code(429).header('retry-after', String(wait)).type('application/json; charset=utf-8');
        reply.removeHeader('link');
        reply.removeHeader('content-length');
        return refusal(wait);
      });
    }
    // With REDIS_URL the counters are shared by every instance; without it each process counts on its own. Redis
    // commands fail fast, and while Redis is away each process counts alone (see rate-limit-store.ts).
    const redis = config.redisUrl
      ? new Redis(config.redisUrl, {
          connectTimeout: 1_000,
          commandTimeout: 50,
          maxRetriesPerRequest: 0,
          enableOfflineQueue: false,
          lazyConnect: false,
          retryStrategy: (attempt) => Math.min(attempt * 100, 1_000),
        })
      : undefined;
    let store: ReturnType<typeof createFallbackStore>['Store'] | undefined;
    if (redis) {
      const fallback = createFallbackStore(redis, 'plant-store:rate:', {
        warn: (message) => app.log.warn(message),
        info: (message) => app.log.info(message),
      });
      store = fallback.Store;
      rateLimitBackend = fallback.backend;
      app.addHook('onClose', async () => {
        await redis.quit().catch(() => redis.disconnect());
      });
    }
    await app.register(rateLimit, {
      ...(store ? { store } : {}),
      global: true,
      // After authentication (onRequest), before the body is read: limits are per principal.
      hook: 'preParsing',
      max: config.rateLimit.max,
      timeWindow: config.rateLimit.windowMs,
      allowList: (request) => request.principal === null,
      keyGenerator: (request) => `principal:${request.principal?.subject ?? request.ip}`,
      errorResponseBuilder: (_request, context) =>
        new ApiError(429, `rate limit of ${context.max} requests exceeded; retry in ${context.after}`),
    });
  }

  // `Expect: 100-continue` is answered only once the token, the scope, the rate limit (all earlier hooks), the
  // Content-Length and the Content-Type say the body will be read; else the refusal comes instead of the 100.
  const sendContinue = async (request: FastifyRequest, reply: FastifyReply) => {
    if (String(request.headers.expect).toLowerCase() !== '100-continue' || reply.raw.headersSent) return;
    if (Number(request.headers['content-length']) > BODY_LIMIT) {
      throw new ApiError(413, `the request body is larger than ${BODY_LIMIT} bytes`);
    }
    if (/^application\/json\s*(;|$)/i.test(request.headers['content-type'] ?? '')) reply.raw.writeContinue();
  };
  app.addHook('onRoute', (route) => {
    const existing = route.preParsing ? [route.preParsing].flat() : [];
    route.preParsing = [...existing, sendContinue as never];
  });

  await registerOperationalRoutes(app, contract, store, rateLimitBackend);

  await app.register(openapiGlue, {
    specification: structuredClone(contract.document),
    // glue's types want full route options; it fills in method, url and schema itself.
    operationResolver: ((operationId: string) => {
      const operation = byOperationId.get(operationId)!;
      const handler = handlers[operationId]!;
      return {
        onRequest: operation.securitySchemes.map((scheme) => securityHandlers[scheme]!(operationId, operation.scope)),
        config: { operationId },
        // Fastify validates a body only when one was sent; the contract requires it for some operations.
        preValidation: async (request: FastifyRequest) => {
          if (operation.bodyRequired && request.body === undefined) {
            throw new ApiError(
              400,
              'the request body is required: send a JSON object with Content-Type: application/json',
            );
          }
        },
        handler: async (request: FastifyRequest, reply: FastifyReply) => {
          const result = await handler(
            {
              principal: request.principal!,
              body: request.body,
              params: request.params,
              query: request.query ?? {},
              // The route's own path, never the request target (absolute-form or with a '#', it is the client's).
              path: request.routeOptions.url ?? '',
            } as never,
            { store },
          );
          reply.code(result.status);
          if (result.headers) reply.headers(result.headers);
          if ('json' in result) return reply.type('application/json; charset=utf-8').send(result.json);
          return reply.send(result.body);
        },
      };
    }) as unknown as FastifyOpenapiGlueOptions['operationResolver'],
  });

  return app;
}
