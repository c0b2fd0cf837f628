// A histogram for the per-request paths: one series per label set, found by a string key (or held by the caller), and
// an observation is a walk over the bounds and three additions. prom-client's Histogram validates and hashes its
// labels on every observation, which the profile of a loaded server showed as the larger part of the cost of metrics.
// This one is registered in a prom-client Registry and hands it the same samples at scrape time, so the text
// exposition and the `serve --workers` aggregation are prom-client's own.
import type { Metric, Registry } from 'prom-client';

export class HistogramSeries {
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(
    readonly labels: Readonly<Record<string, string>>,
    private readonly bounds: readonly number[],
  ) {
    this.counts = new Float64Array(bounds.length);
  }

  observe(value: number): void {
    this.sum += value;
    this.count++;
    const { bounds } = this;
    for (let i = 0; i < bounds.length; i++) {
      if (value <= bounds[i]!) {
        this.counts[i]!++;
        return;
      }
    }
  }
}

interface Sample {
  metricName: string;
  labels: Record<string, string | number>;
  value: number;
}

export class FastHistogram {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  readonly #series = new Map<string, HistogramSeries>();

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly bounds: readonly number[],
    registers: readonly Registry[],
  ) {
    for (const registry of registers) registry.registerMetric(this as unknown as Metric);
  }

  /** The series under `key`, made with `labels()` the first time; the caller may keep it and observe into it. */
  series(key: string, labels: () => Record<string, string>): HistogramSeries {
    let found = this.#series.get(key);
    if (!found) {
      found = new HistogramSeries(labels(), this.bounds);
      this.#series.set(key, found);
    }
    return found;
  }

  /** prom-client's metric interface: the samples as its own Histogram reports them (cumulative buckets). */
  async get(): Promise<{ name: string; help: string; type: string; aggregator: string; values: Sample[] }> {
    const values: Sample[] = [];
    for (const series of this.#series.values()) {
      let cumulative = 0;
      this.bounds.forEach((bound, i) => {
        cumulative += series.counts[i]!;
        values.push({ metricName: `${this.name}_bucket`, labels: { le: bound, ...series.labels }, value: cumulative });
      });
      values.push(
        { metricName: `${this.name}_bucket`, labels: { le: '+Inf', ...series.labels }, value: series.count },
        { metricName: `${this.name}_sum`, labels: { ...series.labels }, value: series.sum },
        { metricName: `${this.name}_count`, labels: { ...series.labels }, value: series.count },
      );
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }
}
