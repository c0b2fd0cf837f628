// Prometheus metrics through inject: after a known sequence of requests the registry holds exact counts per
// operationId, route template and status; rate-limit rejections, requests in flight, store calls by engine, and the
// page cache, the SQLite group commit or the PostgreSQL pool.
import { createTestApp, TEST_DATABASE, type TestApp, waitFor } from '@plant-store/test-kit';
import { samplesWith, sampleValue } from '@plant-store/test-kit/prometheus-samples';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CacheStats } from '../../src/store/store.js';

let t: TestApp;
let text: string;
let batchesBefore: { count: number; sum: number };
/** The page cache's counts before the sequence; the memory engine has no page cache. */
let cacheBefore: CacheStats | undefined;

const request = (method: string, url: string, token?: string, body?: unknown) =>
  t.app.inject({
    method: method as 'GET',
    url,
    headers: token ? { authorization: `Bearer ${token}` } : {},
    ...(body === undefined ? {} : { payload: body as object }),
  });

const scrape = () => t.metrics!.registry.metrics();
const batches = (scraped: string) => ({
  count: sampleValue(scraped, 'plant_store_group_commit_batch_size_count') ?? 0,
  sum: sampleValue(scraped, 'plant_store_group_commit_batch_size_sum') ?? 0,
});
const requests = (method: string, route: string, status: number, operationId: string) =>
  sampleValue(text, 'http_server_request_duration_seconds_count', {
    http_request_method: method,
    http_route: route,
    http_response_status_code: String(status),
    operation_id: operationId,
  });

beforeAll(async () => {
  t = await createTestApp({ metrics: true, env: { RATE_LIMIT_MAX: '8' } });
  const alice = await t.token('alice');
  const bob = await t.token('bob');
  // PostgreSQL trusts its caches only while its change feed listens, and the feed starts with the first read: wait for
  // it (through the raw store, which no metric counts), so the cache counts below do not depend on LISTEN's timing.
  if (t.store.kind === 'postgres') {
    await waitFor('the change feed to listen', async () => {
      await t.store.plants.list('warm-up', { limit: 1 });
      return t.store.cacheStats!().hits > 0;
    });
  }
  cacheBefore = t.store.cacheStats?.();
  batchesBefore = batches(await scrape());
  const statuses = [
    (await request('POST', '/plants', alice, { id: 1, name: 'Fern' })).statusCode,
    (await request('POST', '/plants', alice, { id: 1, name: 'Fern' })).statusCode,
    (await request('POST', '/plants', alice, { id: 2, name: 'Moss' })).statusCode,
    (await request('GET', '/plants', alice)).statusCode,
    (await request('GET', '/plants', alice)).statusCode,
    (await request('DELETE', '/plants/1', alice)).statusCode,
    (await request('DELETE', '/plants/99', alice)).statusCode,
    (await request('GET', '/plants')).statusCode,
    (await request('GET', '/no/such/route', alice)).statusCode,
    (await request('GET', '/healthz')).statusCode,
  ];
  expect(statuses).toEqual([200, 409, 200, 200, 200, 204, 404, 401, 404, 200]);
  // bob's ninth request in the window passes RATE_LIMIT_MAX=8.
  for (let i = 0; i < 9; i++) await request('GET', '/plants?limit=5', bob);
  text = await scrape();
});
afterAll(() => t.close());

describe('http_server_request_duration_seconds', () => {
  it('counts each answer by method, route template, status and operationId', () => {
    expect(requests('POST', '/plants', 200, 'createPlant')).toBe(2);
    expect(requests('POST', '/plants', 409, 'createPlant')).toBe(1);
    expect(requests('GET', '/plants', 200, 'getPlants')).toBe(10);
    expect(requests('GET', '/plants', 401, 'getPlants')).toBe(1);
    expect(requests('GET', '/plants', 429, 'getPlants')).toBe(1);
    // The template, never the id: both deletes share one series per status.
    expect(requests('DELETE', '/plants/:id', 204, 'deletePlant')).toBe(1);
    expect(requests('DELETE', '/plants/:id', 404, 'deletePlant')).toBe(1);
    expect(requests('GET', '/healthz', 200, '')).toBe(1);
    // An unknown route has no template: the raw URL never becomes a label.
    expect(requests('GET', '', 404, '')).toBe(1);
    expect(text).not.toContain('/no/such/route');
    expect(text).not.toContain('/plants/99');
  });

  it('counts no other requests', () => {
    const total = samplesWith(text, 'http_server_request_duration_seconds_count').reduce((n, s) => n + s.value, 0);
    expect(total).toBe(19);
  });

  it('has the semantic conventions label names and cumulative buckets', () => {
    const buckets = samplesWith(text, 'http_server_request_duration_seconds_bucket', { operation_id: 'createPlant' });
    expect(buckets.length).toBeGreaterThan(0);
    const inf = buckets.filter((sample) => sample.labels.le === '+Inf').reduce((n, s) => n + s.value, 0);
    expect(inf).toBe(3);
  });
});

describe('labelled counters', () => {
  it('are present at 0 before anything was counted, so a dashboard shows 0 rather than no data', async () => {
    const fresh = await createTestApp({ metrics: true });
    try {
      const scraped = await fresh.metrics!.registry.metrics();
      for (const limit of ['anonymous', 'principal']) {
        expect(sampleValue(scraped, 'plant_store_rate_limit_rejections_total', { limit })).toBe(0);
      }
      for (const operation of ['plants.create', 'plants.list', 'tokens.findByHash', 'ping']) {
        expect(
          sampleValue(scraped, 'plant_store_store_operation_errors_total', {
            engine: TEST_DATABASE,
            operation,
            error_type: 'unavailable',
          }),
        ).toBe(0);
      }
    } finally {
      await fresh.close();
    }
  });
});

describe('the other request metrics', () => {
  it('counts rate-limit rejections by limit', () => {
    expect(sampleValue(text, 'plant_store_rate_limit_rejections_total', { limit: 'principal' })).toBe(1);
  });

  it('has no request in flight once all have been answered', () => {
    expect(sampleValue(text, 'http_server_active_requests')).toBe(0);
  });

  it('includes the process defaults and event-loop lag', () => {
    expect(sampleValue(text, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(sampleValue(text, 'nodejs_eventloop_lag_seconds')).toBeGreaterThanOrEqual(0);
    expect(sampleValue(text, 'nodejs_eventloop_lag_p99_seconds')).toBeGreaterThanOrEqual(0);
  });
});

describe('store metrics', () => {
  const calls = (operation: string) =>
    sampleValue(text, 'plant_store_store_operation_duration_seconds_count', { engine: TEST_DATABASE, operation });

  it('times every store call by engine and operation', () => {
    expect(calls('plants.create')).toBe(3);
    // 401 and 404 answers never reach the store; the 429 and healthz neither.
    expect(calls('plants.list')).toBe(10);
    expect(calls('plants.delete')).toBe(2);
    // One token lookup per request to an operation that carried a token (an unknown route is answered first).
    expect(calls('tokens.findByHash')).toBe(16);
    // No call failed: every series is there, at 0.
    const errors = samplesWith(text, 'plant_store_store_operation_errors_total');
    expect(errors.map((sample) => sample.value)).toEqual(errors.map(() => 0));
    expect(errors.map((sample) => sample.labels)).toContainEqual({
      engine: TEST_DATABASE,
      operation: 'plants.create',
      error_type: 'unavailable',
    });
  });

  it('counts failed store calls by their error', async () => {
    const failing = await createTestApp({ metrics: true });
    const token = await failing.token('carol');
    await failing.store.close();
    expect(
      (await failing.app.inject({ url: '/plants', headers: { authorization: `Bearer ${token}` } })).statusCode,
    ).toBeGreaterThanOrEqual(500);
    const scraped = await failing.metrics!.registry.metrics();
    const errors = samplesWith(scraped, 'plant_store_store_operation_errors_total', {
      engine: TEST_DATABASE,
      operation: 'tokens.findByHash',
    });
    expect(errors.reduce((n, s) => n + s.value, 0)).toBe(1);
    await failing.app.close();
  });

  // The memory engine keeps no page cache (its store has no cacheStats): there are no cache counts to read.
  it.skipIf(TEST_DATABASE === 'memory')('counts page-cache hits, misses and bytes', () => {
    const before = cacheBefore!;
    // alice: a miss, then a hit; bob: one miss and seven hits (the 429 never reaches the store).
    expect(sampleValue(text, 'plant_store_page_cache_hits_total')! - before.hits).toBe(8);
    expect(sampleValue(text, 'plant_store_page_cache_misses_total')! - before.misses).toBe(2);
    expect(sampleValue(text, 'plant_store_page_cache_bytes')).toBeGreaterThan(before.bytes);
    // alice's page was forgotten when her plant was deleted; bob's stays.
    expect(sampleValue(text, 'plant_store_page_cache_entries')! - before.entries).toBe(1);
  });

  it.runIf(TEST_DATABASE === 'sqlite')('records group-commit batch sizes', () => {
    const after = batches(text);
    // Five writes (three creates, two deletes), each awaited alone: five batches of one.
    expect(after.sum - batchesBefore.sum).toBe(5);
    expect(after.count - batchesBefore.count).toBe(5);
  });

  it.runIf(TEST_DATABASE === 'postgres')('reports the connection pool', () => {
    expect(sampleValue(text, 'plant_store_db_pool_max')).toBe(10);
    expect(sampleValue(text, 'plant_store_db_pool_connections')).toBeGreaterThan(0);
    expect(sampleValue(text, 'plant_store_db_pool_waiting')).toBe(0);
  });
});
