// OpenTelemetry tracing, loaded only when the OTEL_* variables turn it on (server.ts imports this module
// dynamically, so with tracing off not one OpenTelemetry module is loaded). Only the pieces traces need are installed
// (not @opentelemetry/sdk-node, which brings every exporter, gRPC included): a tracer provider with a batch
// processor, the OTLP/HTTP (JSON) exporter, which reads its endpoint, headers and timeout from the standard
// variables, W3C trace context, and the sampler and resource the standard variables name. @fastify/otel makes the
// server span of each request, continuing a W3C traceparent the caller sent, and the store decorator makes a child
// span per store call.
import { FastifyOtelInstrumentation } from '@fastify/otel';
import { context, propagation, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ConsoleSpanExporter,
  ParentBasedSampler,
  type Sampler,
  type SpanExporter,
  TraceIdRatioBasedSampler,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
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
  const named = env.OTEL_SERVICE_NAME ? {} : { 'service.name': SERVICE_NAME };
  const provider = new TracerProvider({
    resource: resourceFromAttributes(named).merge(detectResources({ detectors: [envDetector] })),
    sampler: samplerFromEnv(env),
    spanProcessors: exporterFromEnv(env).map((exporter) => new BatchSpanProcessor({ exporter })),
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  // @fastify/otel (CommonJS) took its tracer from its own copy of the API when it was constructed, before any provider
  // was registered: hand it the provider itself (as the Node SDK's registerInstrumentations did).
  instrumentation.setTracerProvider(provider);
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
    shutdown: () => provider.shutdown(),
  };
}

/** OTEL_TRACES_EXPORTER: `otlp` (the default) over HTTP with JSON, `console`, or `none`. */
function exporterFromEnv(env: Record<string, string | undefined>): SpanExporter[] {
  const names = (env.OTEL_TRACES_EXPORTER ?? 'otlp').split(',').map((name) => name.trim().toLowerCase());
  const protocol = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL)?.trim();
  if (protocol && protocol !== 'http/json') {
    process.emitWarning(
      `OTEL_EXPORTER_OTLP_PROTOCOL=${protocol}: this service exports OTLP over HTTP with JSON only (port 4318); ` +
        'http/json is used',
    );
  }
  return names.flatMap((name): SpanExporter[] =>
    name === 'none' ? [] : name === 'console' ? [new ConsoleSpanExporter()] : [new OTLPTraceExporter()],
  );
}

/** OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG, as the specification names them; parentbased_always_on by default. */
function samplerFromEnv(env: Record<string, string | undefined>): Sampler {
  const ratio = Number(env.OTEL_TRACES_SAMPLER_ARG ?? 1);
  const root = new TraceIdRatioBasedSampler(Number.isFinite(ratio) ? ratio : 1);
  switch (env.OTEL_TRACES_SAMPLER?.trim().toLowerCase()) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return root;
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root });
    default:
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}
