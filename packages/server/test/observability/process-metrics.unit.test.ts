// The process metrics are prom-client's defaults but the GC histogram, and nothing observes the collector.
import { PerformanceObserver } from 'node:perf_hooks';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { expect, it, vi } from 'vitest';
import { collectProcessMetrics } from '../../src/observability/process-metrics.js';

const names = (registry: Registry) =>
  registry
    .getMetricsAsArray()
    .map((metric) => metric.name)
    .sort();

it('registers every default metric of prom-client but nodejs_gc_duration_seconds, and observes no GC', async () => {
  const observe = vi.spyOn(PerformanceObserver.prototype, 'observe');
  const ours = new Registry();
  collectProcessMetrics(ours);
  expect(observe).not.toHaveBeenCalled();
  observe.mockRestore();

  const defaults = new Registry();
  collectDefaultMetrics({ register: defaults });
  expect(names(defaults)).toContain('nodejs_gc_duration_seconds');
  expect(names(ours)).toEqual(names(defaults).filter((name) => name !== 'nodejs_gc_duration_seconds'));
  // Each one reports: a figure of the process, the event-loop lag among them.
  const text = await ours.metrics();
  expect(text).toMatch(/^process_resident_memory_bytes \d+/m);
  expect(text).toMatch(/^nodejs_eventloop_lag_p99_seconds /m);
});
