// OpenTelemetry tracing of `plant-store serve`, against an OTLP/HTTP receiver on loopback: a server span per request
// named by operationId with the semantic-convention attributes, continuing the caller's W3C traceparent; child spans
// for the store calls; the trace id beside the request id in the log lines. And with tracing off (the default), no
// part of the OpenTelemetry SDK is loaded: only its API, the no-op facade prom-client itself requires.
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createPlantStoreClient, traceContextMiddleware } from '@plant-store/sdk';
import { createTestDatabase, type TestDatabase, waitFor } from '@plant-store/test-kit';
import { type ServerProcess, startServerProcess, stopAll, tokenIn } from '@plant-store/test-kit/server-process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const SPY = fileURLToPath(new URL('./fixtures/otel-module-spy.mjs', import.meta.url));

interface OtlpAttribute {
  key: string;
  value: { stringValue?: string; intValue?: string | number; boolValue?: boolean };
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: OtlpAttribute[];
}

let database: TestDatabase;
let receiver: Server;
let endpoint: string;
const spans: OtlpSpan[] = [];
const resources: OtlpAttribute[][] = [];
const processes: ServerProcess[] = [];

beforeAll(async () => {
  database = createTestDatabase('sqlite');
  receiver = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      if (request.url === '/v1/traces') {
        const payload = JSON.parse(body) as {
          resourceSpans: { resource: { attributes: OtlpAttribute[] }; scopeSpans: { spans: OtlpSpan[] }[] }[];
        };
        for (const resourceSpan of payload.resourceSpans) {
          resources.push(resourceSpan.resource.attributes);
          for (const scope of resourceSpan.scopeSpans) spans.push(...scope.spans);
        }
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await stopAll(processes);
  receiver.close();
  await database.drop();
});

const tokenFor = (subject: string) => tokenIn(database.url, subject);

async function start(env: Record<string, string>): Promise<ServerProcess> {
  const server = await startServerProcess({ DATABASE_URL: database.url, NODE_OPTIONS: `--import=${SPY}`, ...env });
  processes.push(server);
  return server;
}

/** The OpenTelemetry modules the process loaded (fixtures/otel-module-spy.mjs), but for the API facade. */
const sdkModules = (server: ServerProcess) =>
  [...server.errors().matchAll(/^otel-module-loaded (\S+)$/gm)]
    .map((match) => match[1]!)
    .filter((url) => !url.includes('/@opentelemetry/api/'));

const attribute = (span: OtlpSpan, key: string) => {
  const value = span.attributes.find((item) => item.key === key)?.value;
  return value?.stringValue ?? (value?.intValue === undefined ? value?.boolValue : Number(value.intValue));
};

describe('tracing on (OTEL_EXPORTER_OTLP_ENDPOINT)', () => {
  let server: ServerProcess;
  let token: string;
  beforeAll(async () => {
    server = await start({
      OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '50',
      OTEL_SERVICE_NAME: 'plant-store-under-test',
      // debug adds the "incoming request" line to the one "request completed" line of info: both carry the trace.
      LOG_LEVEL: 'debug',
      ACCESS_LOG: 'true',
    });
    token = await tokenFor(`traced-${randomBytes(4).toString('hex')}`);
  });

  it('continues the caller traceparent with a server span named by operationId, store calls as children', async () => {
    const traceId = randomBytes(16).toString('hex');
    const parentId = randomBytes(8).toString('hex');
    const response = await fetch(`${server.url}/plants`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        traceparent: `00-${traceId}-${parentId}-01`,
        'x-request-id': 'traced-request-1',
      },
      body: JSON.stringify({ id: 7, name: 'Fern' }),
    });
    expect(response.status).toBe(200);
    await waitFor('the request span and its store spans', () =>
      ['createPlant', 'store plants.create', 'store tokens.findByHash'].every((name) =>
        spans.some((span) => span.traceId === traceId && span.name === name),
      ),
    );
    const inTrace = spans.filter((span) => span.traceId === traceId);
    const serverSpan = inTrace.find((span) => span.name === 'createPlant')!;
    expect(serverSpan.parentSpanId).toBe(parentId);
    expect(serverSpan.kind).toBe(2); // SPAN_KIND_SERVER
    expect(attribute(serverSpan, 'http.request.method')).toBe('POST');
    expect(attribute(serverSpan, 'http.route')).toBe('/plants');
    expect(attribute(serverSpan, 'http.response.status_code')).toBe(200);
    expect(attribute(serverSpan, 'plant_store.request_id')).toBe('traced-request-1');
    // Each store span descends from the server span.
    const byId = new Map(inTrace.map((span) => [span.spanId, span]));
    const descendsFromServer = (span: OtlpSpan) => {
      for (let at: OtlpSpan | undefined = span; at; at = byId.get(at.parentSpanId ?? '')) {
        if (at.parentSpanId === serverSpan.spanId) return true;
      }
      return false;
    };
    for (const name of ['store plants.create', 'store tokens.findByHash']) {
      const storeSpan = inTrace.find((span) => span.name === name)!;
      expect(descendsFromServer(storeSpan), name).toBe(true);
      expect(attribute(storeSpan, 'db.system.name')).toBe('sqlite');
    }
    expect(
      resources.some((attributes) =>
        attributes.some((item) => item.key === 'service.name' && item.value.stringValue === 'plant-store-under-test'),
      ),
    ).toBe(true);

    // Every log line of the request carries both its request id and the trace id.
    await waitFor('the request log lines', () => server.output().includes('"msg":"request completed"'));
    const lines = server
      .output()
      .split('\n')
      .filter((line) => line.includes('"reqId":"traced-request-1"'))
      .map((line) => JSON.parse(line) as { trace_id?: string; msg: string });
    expect(lines.map((line) => line.msg)).toEqual(['incoming request', 'request completed']);
    for (const line of lines) expect(line.trace_id).toBe(traceId);
  });

  it('starts a new trace for a request without traceparent', async () => {
    const response = await fetch(`${server.url}/plants`, {
      headers: { authorization: `Bearer ${token}`, 'x-request-id': 'traced-request-2' },
    });
    expect(response.status).toBe(200);
    await waitFor('the getPlants span', () => spans.some((span) => span.name === 'getPlants'));
    const root = spans.find((span) => span.name === 'getPlants')!;
    expect(root.parentSpanId ?? '').toBe('');
    expect(attribute(root, 'http.response.status_code')).toBe(200);
  });

  it("joins the trace the SDK's traceContextMiddleware forwards", async () => {
    const traceId = randomBytes(16).toString('hex');
    const parentId = randomBytes(8).toString('hex');
    const client = createPlantStoreClient({
      baseUrl: server.url,
      token,
      middleware: [traceContextMiddleware(() => ({ traceparent: `00-${traceId}-${parentId}-01` }))],
    });
    await client.plants.delete(7);
    await waitFor('the deletePlant span', () => spans.some((span) => span.traceId === traceId));
    const serverSpan = spans.find((span) => span.traceId === traceId && span.name === 'deletePlant');
    expect(serverSpan?.parentSpanId).toBe(parentId);
    expect(attribute(serverSpan!, 'http.route')).toBe('/plants/:id');
  });

  it("exports url.path without the query and url.query with tokens redacted, by the log's rule", async () => {
    const traceId = randomBytes(16).toString('hex');
    const query = 'limit=2&access%5Ftoken=pst_TRACESECRET1&%61ccess_token=pst_TRACESECRET2';
    const response = await fetch(`${server.url}/plants?${query}`, {
      headers: { traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` },
    });
    expect(response.status).toBe(400);
    await waitFor('the refused request span', () => spans.some((span) => span.traceId === traceId));
    const serverSpan = spans.find((span) => span.traceId === traceId && span.kind === 2)!;
    expect(attribute(serverSpan, 'url.path')).toBe('/plants');
    expect(attribute(serverSpan, 'url.query')).toBe('limit=2&access%5Ftoken=[redacted]&%61ccess_token=[redacted]');
    expect(JSON.stringify(spans)).not.toContain('TRACESECRET');
  });

  it('loads the trace SDK and the OTLP/HTTP exporter, not the whole Node SDK', () => {
    expect(sdkModules(server)).toContainEqual(expect.stringContaining('/@opentelemetry/sdk-trace/'));
    expect(sdkModules(server)).toContainEqual(expect.stringContaining('/@opentelemetry/exporter-trace-otlp-http/'));
    expect(sdkModules(server)).not.toContainEqual(expect.stringContaining('/@opentelemetry/sdk-node/'));
    expect(sdkModules(server)).toContainEqual(expect.stringContaining('/@fastify/otel/'));
  });
});

describe('tracing off (the default)', () => {
  it('loads no part of the OpenTelemetry SDK, and its log lines stay as they were', async () => {
    const server = await start({ ACCESS_LOG: 'true' });
    const token = await tokenFor(`untraced-${randomBytes(4).toString('hex')}`);
    const response = await fetch(`${server.url}/plants`, {
      headers: {
        authorization: `Bearer ${token}`,
        traceparent: `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-01`,
      },
    });
    expect(response.status).toBe(200);
    await waitFor('the request log', () => server.output().includes('"msg":"request completed"'));
    expect(sdkModules(server)).toEqual([]);
    expect(server.output()).not.toContain('trace_id');
  });
});
