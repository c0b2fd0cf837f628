// The composition root: builds the Fastify app from the contract, the config, a store and (optionally) a Redis
// client for shared rate limits. It registers the pieces in http/ and auth/ in the order they must run,
// and never listens (server.ts does), so tests drive it with inject or start their own listener.
import { handlers as defaultHandlers } from '@plant-store/core';
import Fastify, { type FastifyInstance } from 'fastify';
import openapiGlue from 'fastify-openapi-glue';
import type { Redis } from 'ioredis';
import { createSecurityHandlers, type SecurityHandlers } from './auth/bearer.js';
import type { Config } from './config.js';
import { registerAnswerBurst } from './http/answer-burst.js';
import { type BoundHandler, checkBindings, operationResolver } from './http/bindings.js';
import { clientErrorHandler, registerCloseAfterEarlyAnswer } from './http/client-errors.js';
import { registerCors } from './http/cors.js';
import { frameworkErrors, registerErrorHandler } from './http/error-handler.js';
import { registerExpectContinue } from './http/expect-continue.js';
import { httpServerFactory } from './http/http-server.js';
import { BODY_LIMIT, registerJsonBodyParser } from './http/json-body.js';
import { registerLoadShedding } from './http/load-shedding.js';
import { AccessLog, loggerOptions, requestLog } from './http/logger.js';
import { registerNotFoundHandler } from './http/not-found.js';
import { type Contract, loadContract } from './http/openapi-document.js';
import { registerOperationalRoutes } from './http/operational-routes.js';
import { registerRateLimit } from './http/rate-limit.js';
import { registerReadOnly } from './http/read-only.js';
import { registerRequestBodies } from './http/request-bodies.js';
import { requestId } from './http/request-id.js';
import { registerAnswerHeaders } from './http/security-headers.js';
import { registerValidation } from './http/validation.js';
import { registerIdempotencySweeper } from './idempotency/sweeper.js';
import {
  type Observability,
  observedStore,
  registerObservability,
  TracedRequestLog,
  webhookObserver,
} from './observability/observe-app.js';
import type { Store } from './store/store.js';
import { registerWebhookDelivery } from './webhooks/register.js';

export interface AppOptions {
  config: Config;
  store: Store;
  /** Shares rate-limit counters between instances; the caller creates and closes it. Without it, per process. */
  redis?: Redis | undefined;
  /** The contract to serve; openapi.yaml unless a test passes another. */
  contract?: Contract;
  /** Handlers by operationId; the real ones unless a test passes others. */
  handlers?: Readonly<Record<string, BoundHandler>>;
  /** Prometheus metrics and OpenTelemetry tracing (server.ts creates them from the config); both off without. */
  observability?: Observability;
  /** Makes each request's id; a UUID-shaped id (random per process, then a counter) unless given (http/request-id.ts). */
  genReqId?: () => string;
  /**
   * The headers every answer carries: `security`, helmet's headers and (on API answers) Cache-Control: no-store;
   * `requestId`, X-Request-Id. Both on unless set false (say, behind a proxy that sets its own).
   */
  answerHeaders?: { security?: boolean; requestId?: boolean };
  /** Wraps the bearer checks every route runs (auth/bearer.ts), to record or remember them; as they are without. */
  wrapSecurityHandlers?: (handlers: SecurityHandlers) => SecurityHandlers;
  /**
   * The caller's own set-up of the app (compilers, hooks, decorations), run once the service has set its validator
   * compiler and before its other hooks and its routes.
   */
  configure?: (app: FastifyInstance) => void;
  /** Starts the webhook delivery worker once the app listens (default true; false where other instances deliver). */
  webhookWorker?: boolean;
}

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { config } = options;
  const observability = options.observability ?? {};
  const store = observedStore(options.store, observability);
  const contract = options.contract ?? loadContract();
  const handlers = options.handlers ?? defaultHandlers;
  // Imported only when configured: jose stays unloaded otherwise (as do pg, ioredis and OpenTelemetry when unused).
  // A JWKS outage is logged by the app's logger, which exists once Fastify does (before any request needs a key).
  const authLog = {
    info: (details: object, message: string) => app.log.info(details, message),
    warn: (details: object, message: string) => app.log.warn(details, message),
  };
  const verifyJwt = config.jwt
    ? await (await import('./auth/jwt.js')).createJwtVerifier(config.jwt, { log: authLog })
    : null;
  const checks = createSecurityHandlers(store, verifyJwt);
  const securityHandlers = options.wrapSecurityHandlers ? options.wrapSecurityHandlers(checks) : checks;
  checkBindings(contract, handlers, securityHandlers);

  const app = Fastify({
    logger: loggerOptions(config.logLevel),
    genReqId: options.genReqId ?? requestId,
    requestIdHeader: false,
    // With ACCESS_LOG, one line per request (http/logger.ts); with tracing on, bound to its trace (observe-app.ts).
    logController: observability.tracing ? new TracedRequestLog(config.accessLog) : new AccessLog(config.accessLog),
    // With the log off Fastify's own stand-in is every request's logger already: nothing to make lazily.
    ...(config.logLevel === 'silent' ? {} : { childLoggerFactory: requestLog }),
    bodyLimit: BODY_LIMIT,
    // HEAD works wherever GET does (RFC 9110; load balancers probe with it), with no body.
    exposeHeadRoutes: true,
    return503OnClosing: false,
    trustProxy: config.trustProxy,
    clientErrorHandler,
    frameworkErrors,
    serverFactory: httpServerFactory(config, { warn: (details, message) => app.log.warn(details, message) }),
  });

  // Before anything can fail: errors must answer in the contract's Error shape.
  app.decorateRequest('principal', null);
  // Declared in every request's shape up front, so setting it for a keyed body changes no object's shape.
  app.decorateRequest('keyedBodyBytes', null);
  // First of the hooks: every request is measured and traced, those answered early included.
  await registerObservability(app, store, observability, config.accessLog);
  // The answers of a turn of the event loop leave together at its end.
  const burst = registerAnswerBurst(app);
  // A request's reads of the store check its caches once, against the database as the request began: SQLite's, once
  // for all the requests of a turn, which wait for it; the turn's answers leave after it.
  if (store.beginRequest) {
    app.addHook('onRequest', (_request, _reply, done) => {
      const look = store.beginRequest!();
      if (!look) return done();
      burst.expect();
      look.then(() => done(), done);
    });
  }
  registerValidation(app);
  options.configure?.(app);
  registerErrorHandler(app);
  registerJsonBodyParser(app, contract.operations);

  await registerAnswerHeaders(app, {
    securityHeaders: options.answerHeaders?.security ?? true,
    requestIds: options.answerHeaders?.requestId ?? true,
  });
  // Unknown routes and refused methods are answered in onRequest, before any body is read: after the hooks above,
  // so those answers carry the same headers.
  registerNotFoundHandler(app, contract.operations);
  registerCloseAfterEarlyAnswer(app);
  registerRequestBodies(app);
  await registerLoadShedding(app, config.maxEventLoopDelayMs);
  await registerCors(
    app,
    config.corsOrigins,
    contract.operations.map((operation) => operation.method),
  );
  registerReadOnly(app, config.readOnly);
  if (observability.metrics) observability.metrics.readOnly.on = config.readOnly;
  const rateLimits = config.rateLimit
    ? await registerRateLimit(app, { ...config.rateLimit, redis: options.redis })
    : null;
  // Last of the hooks before the body: only then is `Expect: 100-continue` answered.
  registerExpectContinue(app);

  await registerOperationalRoutes(app, contract, store, rateLimits, config.readOnly);
  await app.register(openapiGlue, {
    specification: structuredClone(contract.document),
    operationResolver: operationResolver(contract, handlers, securityHandlers, store),
  });
  if (options.webhookWorker ?? true) {
    registerWebhookDelivery(app, config, store, webhookObserver(store, observability));
  }
  registerIdempotencySweeper(app, store);
  return app;
}
