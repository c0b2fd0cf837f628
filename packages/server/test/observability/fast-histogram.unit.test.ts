// The hot-path histogram reports exactly what prom-client's own Histogram reports for the same observations, in the
// text exposition and in the JSON the `serve --workers` primary aggregates.
import { AggregatorRegistry, Histogram, Registry } from 'prom-client';
import { expect, it } from 'vitest';
import { FastHistogram } from '../../src/observability/fast-histogram.js';

const BOUNDS = [0.001, 0.01, 0.1, 1];
const OBSERVATIONS: [string, number][] = [
  ['GET', 0.0005],
  ['GET', 0.001],
  ['GET', 0.05],
  ['POST', 0.2],
  ['POST', 3],
  ['GET', 0.0099],
];

function both() {
  const fast = new Registry();
  const reference = new Registry();
  const histogram = new FastHistogram('d_seconds', 'help', BOUNDS, [fast]);
  const prom = new Histogram({
    name: 'd_seconds',
    help: 'help',
    labelNames: ['m'],
    buckets: BOUNDS,
    registers: [reference],
  });
  for (const [m, value] of OBSERVATIONS) {
    histogram.series(m, () => ({ m })).observe(value);
    prom.observe({ m }, value);
  }
  return { fast, reference };
}

it('exposes the same text as prom-client', async () => {
  const { fast, reference } = both();
  expect(await fast.metrics()).toBe(await reference.metrics());
});

it('aggregates across registries like prom-client', async () => {
  const a = both();
  const b = both();
  const fast = AggregatorRegistry.aggregate([await a.fast.getMetricsAsJSON(), await b.fast.getMetricsAsJSON()]);
  const reference = AggregatorRegistry.aggregate([
    await a.reference.getMetricsAsJSON(),
    await b.reference.getMetricsAsJSON(),
  ]);
  expect(await fast.metrics()).toBe(await reference.metrics());
});
