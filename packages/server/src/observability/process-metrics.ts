// prom-client's process and Node.js metrics (CPU, memory, heap, handles, event-loop lag, version) but its GC histogram
// (nodejs_gc_duration_seconds): that one observes every collection through a PerformanceObserver, one callback per
// minor GC (about 80 a second under the hot read), which cost the hot read about 2% of its CPU, as much as the rest of
// the default metrics' per-request work (docs/operating.md). Event-loop lag and the heap's sizes still show what the
// collector does to the service. Each of prom-client's defaults is its own module, named in its `metricsList`, and
// registered here with the options collectDefaultMetrics gives it.
import { createRequire } from 'node:module';
import type { Registry } from 'prom-client';

const require = createRequire(import.meta.url);

type DefaultMetric = (registry: Registry, config: { eventLoopMonitoringPrecision: number }) => void;

/** The defaults left out: one name of prom-client's metricsList. */
const LEFT_OUT = new Set(['gc']);

export function collectProcessMetrics(registry: Registry): void {
  const { metricsList } = require('prom-client/lib/defaultMetrics.js') as { metricsList: string[] };
  for (const name of metricsList) {
    if (LEFT_OUT.has(name)) continue;
    const register = require(`prom-client/lib/metrics/${name}.js`) as DefaultMetric;
    register(registry, { eventLoopMonitoringPrecision: 10 });
  }
}
