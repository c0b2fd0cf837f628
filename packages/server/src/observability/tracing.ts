// OpenTelemetry tracing, loaded only when the OTEL_* variables turn it on (server.ts imports this module
// dynamically, so with tracing off not one OpenTelemetry module is loaded). The Node SDK reads the standard
// variables itself (endpoint, protocol, headers, service name, sampler); @fastify/otel makes the server span of each
// request, continuing a W3C traceparent the caller sent, and the store decorator makes a child span per store call.
import { FastifyOtelInstrumentation } from '@fastify/otel';
import { context, SpanStatusCode, trace } from '@opentelemetry/api';
import { NodeSDK } from '@opentelemetry/sdk-node';
import type { FastifyPluginCallback, FastifyRequest } from 'fastify';
import { redactedUrlAttributes } from '../http/url-redaction.js';
import type { SpanAround } from './instrumented-store.js';

export interface Tracing {
  /** The Fastify plugin that opens a span per request; registered before any other hook. */
  readonly plugin: FastifyPluginCallback;
  /** Runs a call inside a child span of the active one. */
  readonly span: SpanAround;
  /** The trace and span ids of the request's span, for its log lines; undefined when it has none (not sampled). */
  ids(request: FastifyRequest): { trace_id: string; span_id: string } | undefined;
  /** Flushes the spans not yet exported and stops the SDK. */
  shutdown(): Promise<void>;
}

const SERVICE_NAME = 'plant-store';

export function startTracing(env: Record<string, string | undefined> = process.env): Tracing {
  // Metrics go to Prometheus (METRICS_PORT) and logs to stdout; the SDK exports traces only unless told otherwise.
  env.OTEL_METRICS_EXPORTER ??= 'none';
  env.OTEL_LOGS_EXPORTER ??= 'none';
  const instrumentation = new FastifyOtelInstrumentation({
    // Hook spans would bury the ones that matter: the request, its handler, its store calls.
    instrumentHooks: false,
    // The server span is named after the operation (semantic conventions: a low-cardinality name).
    requestHook: (span, request) => {
      const operationId = (request.routeOptions.config as { operationId?: string }).operationId;
      span.updateName(operationId ?? `${request.method} ${request.routeOptions.url ?? ''}`.trim());
      if (operationId) span.setAttribute('plant_store.operation_id', operationId);
      span.setAttribute('plant_store.request_id', request.id);
      // @fastify/otel sets url.path to the raw URL, query included: tokens in it must not reach the collector. The
      // log's redaction rule applies (url-redaction.ts): the path alone, and the query redacted apart.
      span.setAttributes(redactedUrlAttributes(request.url));
    },
  });
  const sdk = new NodeSDK({
    ...(env.OTEL_SERVICE_NAME ? {} : { serviceName: SERVICE_NAME }),
    instrumentations: [instrumentation],
  });
  sdk.start();
  const tracer = trace.getTracer(SERVICE_NAME);
  return {
    plugin: instrumentation.plugin(),
    span: (name, attributes, call) =>
      tracer.startActiveSpan(name, { attributes }, (span) =>
        call().then(
          (value) => {
            span.end();
            return value;
          },
          (error: unknown) => {
            span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
            span.end();
            throw error;
          },
        ),
      ),
    ids(request) {
      const span = request.opentelemetry().span ?? trace.getSpan(context.active());
      const spanContext = span?.spanContext();
      if (!spanContext || !trace.isSpanContextValid(spanContext)) return undefined;
      return { trace_id: spanContext.traceId, span_id: spanContext.spanId };
    },
    shutdown: () => sdk.shutdown(),
  };
}
