// The service's Prometheus metrics, in a registry of their own (one per app, so tests can build several): HTTP by the
// OpenTelemetry semantic conventions in Prometheus form, the store, the SQLite group commit and page cache, the
// PostgreSQL pool, and prom-client's process defaults but GC (process-metrics.ts). docs/operating.md lists them.
import { Counter, Gauge, Registry } from 'prom-client';
import { connectionSheds, type ShedReason } from '../http/connection-shares.js';
import { logDrops } from '../http/logger.js';
import type { Store } from '../store/store.js';
import { FastHistogram } from './fast-histogram.js';
import { collectProcessMetrics } from './process-metrics.js';

// The semantic conventions' advice for http.server.request.duration, with finer steps below 5 ms: most answers here
// take well under a millisecond.
const DURATION_BUCKETS = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10,
];

export interface Metrics {
  readonly registry: Registry;
  /** Labels http_request_method, http_route, http_response_status_code, operation_id (http-metrics.ts). */
  readonly requestDuration: FastHistogram;
  /** Requests being answered now, as http-metrics.ts reads them at scrape time (the http_server_active_requests gauge). */
  readonly inFlight: { read: () => number };
  /** Whether writes are refused (READ_ONLY), read by the plant_store_read_only gauge; app.ts sets it. */
  readonly readOnly: { on: boolean };
  readonly rateLimitRejections: Counter<'limit'>;
  /** Labels engine, operation (instrumented-store.ts). */
  readonly storeDuration: FastHistogram;
  readonly storeErrors: Counter<'engine' | 'operation' | 'error_type'>;
  /** Hears the size of each SQLite group-commit batch (openStore's onGroupCommit). */
  readonly groupCommitBatch: (size: number) => void;
  /** Reads the store's cache and pool figures at each scrape, where the store has them. */
  watchStore(store: Store): void;
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  const registers = [registry];
  collectProcessMetrics(registry);
  // Observed once per commit, so on the write path: a FastHistogram's series, as the request durations are.
  const groupCommitBatches = new FastHistogram(
    'plant_store_group_commit_batch_size',
    'SQLite writes committed together in one transaction (one fsync)',
    [1, 2, 4, 8, 16, 32, 64, 128, 256],
    registers,
  ).series('', () => ({}));
  // Read at scrape time (http-metrics.ts counts the connections answering): nothing on the request path.
  const inFlight = { read: () => 0 };
  const readOnly = { on: false };
  new Gauge({
    name: 'plant_store_read_only',
    help: 'Whether the service refuses creates and deletes (READ_ONLY=true): 1, or 0 while it takes writes',
    registers,
    // One figure for `serve --workers N`, not N.
    aggregator: 'max',
    collect() {
      this.set(readOnly.on ? 1 : 0);
    },
  });
  readGauge('http_server_active_requests', 'HTTP requests being answered now (in flight)', registers, () =>
    inFlight.read(),
  );
  totalCounter(
    'plant_store_log_lines_dropped_total',
    'Log lines dropped because standard output did not take them (a stalled reader); the log says when it flows again',
    registers,
    () => logDrops.lines,
  );
  const shedSeen: Record<ShedReason, number> = { address_share: 0, idle: 0, full: 0 };
  new Counter({
    name: 'plant_store_connections_shed_total',
    help: 'Connections closed to share the connection slots: beyond an address share, idle ones making room, or all busy',
    labelNames: ['reason'],
    registers,
    collect() {
      for (const reason of Object.keys(shedSeen) as ShedReason[]) {
        this.inc({ reason }, connectionSheds[reason] - shedSeen[reason]);
        shedSeen[reason] = connectionSheds[reason];
      }
    },
  });
  const rateLimitRejections = new Counter({
    name: 'plant_store_rate_limit_rejections_total',
    help: 'Requests refused with 429 by a rate limit: per principal, or per address for requests without a token',
    labelNames: ['limit'],
    registers,
  });
  // Labelled counters start at 0 in every series known in advance: a dashboard shows 0, not "no data".
  for (const limit of ['anonymous', 'principal']) rateLimitRejections.inc({ limit }, 0);
  return {
    registry,
    requestDuration: new FastHistogram(
      'http_server_request_duration_seconds',
      'Duration of HTTP server requests, from the first byte read to the last byte written',
      DURATION_BUCKETS,
      registers,
    ),
    inFlight,
    readOnly,
    rateLimitRejections,
    storeDuration: new FastHistogram(
      'plant_store_store_operation_duration_seconds',
      'Duration of store (database) calls, failed ones included',
      DURATION_BUCKETS,
      registers,
    ),
    storeErrors: new Counter({
      name: 'plant_store_store_operation_errors_total',
      help: 'Store calls that failed: error_type "unavailable" (answered 503) or the error class',
      labelNames: ['engine', 'operation', 'error_type'],
      registers,
    }),
    groupCommitBatch: (size) => groupCommitBatches.observe(size),
    watchStore: (store) => watchStore(store, registers),
  };
}

/** A counter whose value is read from a running total at scrape time. */
function totalCounter(name: string, help: string, registers: Registry[], read: () => number): void {
  let seen = 0;
  new Counter({
    name,
    help,
    registers,
    collect() {
      const total = read();
      if (total > seen) this.inc(total - seen);
      seen = total;
    },
  });
}

function readGauge(name: string, help: string, registers: Registry[], read: () => number): void {
  new Gauge({
    name,
    help,
    registers,
    collect() {
      this.set(read());
    },
  });
}

function watchStore(store: Store, registers: Registry[]): void {
  const cacheStats = store.cacheStats?.bind(store);
  if (cacheStats) {
    totalCounter('plant_store_page_cache_hits_total', 'Plant pages answered from the page cache', registers, () => {
      return cacheStats().hits;
    });
    totalCounter('plant_store_page_cache_misses_total', 'Plant pages built by the database', registers, () => {
      return cacheStats().misses;
    });
    readGauge(
      'plant_store_page_cache_bytes',
      'Bytes the page cache holds (PAGE_CACHE_BYTES bounds it)',
      registers,
      () => {
        return cacheStats().bytes;
      },
    );
    readGauge('plant_store_page_cache_entries', 'Pages the page cache holds', registers, () => cacheStats().entries);
  }
  const feedStats = store.feedStats?.bind(store);
  if (feedStats) {
    readGauge(
      'plant_store_change_feed_live',
      "1 while the change feed hears every instance's writes, else 0",
      registers,
      () => (feedStats().live ? 1 : 0),
    );
    readGauge(
      'plant_store_change_feed_lag_seconds',
      'How late change notifications arrive: the last heartbeat round trip, or the wait for one not yet back',
      registers,
      () => feedStats().lagSeconds,
    );
  }
  const poolStats = store.poolStats?.bind(store);
  if (poolStats) {
    readGauge('plant_store_db_pool_max', 'Most connections the PostgreSQL pool opens', registers, () => {
      return poolStats().max;
    });
    readGauge('plant_store_db_pool_connections', 'Open PostgreSQL connections', registers, () => poolStats().total);
    readGauge('plant_store_db_pool_idle', 'Open PostgreSQL connections not in use', registers, () => poolStats().idle);
    readGauge('plant_store_db_pool_waiting', 'Calls waiting for a PostgreSQL connection', registers, () => {
      return poolStats().waiting;
    });
  }
}
