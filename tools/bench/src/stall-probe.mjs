// Where a server's tail comes from: preloaded into it (node --import), this writes one line per 100 ms to the file
// named by STALL_PROBE_FILE: the event loop's delay in that window (max, p99, mean, from perf_hooks'
// monitorEventLoopDelay at 1 ms resolution), the time spent in garbage collection by kind (from a PerformanceObserver on
// 'gc' entries), and the heap's size. Run with --trace-gc too to see each collection. Plain JavaScript, so it loads
// without tsx; `plant-store serve` keeps it across its own re-execution (execArgv is kept). stalls.ts runs it.
// Usage: STALL_PROBE_FILE=/tmp/probe.tsv node --import ./tools/bench/src/stall-probe.mjs packages/server/bin/plant-store.js serve
import { appendFileSync, writeFileSync } from 'node:fs';
import { constants, monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';

const file = process.env.STALL_PROBE_FILE;
if (file) {
  const kinds = {
    [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
    [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
    [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
    [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
  };
  let gc = { minor: 0, major: 0, incremental: 0, weakcb: 0, longest: 0, count: 0 };
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = kinds[entry.detail?.kind] ?? 'minor';
      gc[kind] += entry.duration;
      gc.longest = Math.max(gc.longest, entry.duration);
      gc.count++;
    }
  }).observe({ entryTypes: ['gc'] });
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  const ms = (ns) => (ns / 1e6).toFixed(2);
  writeFileSync(
    file,
    't_ms\tdelay_max_ms\tdelay_p99_ms\tdelay_mean_ms\tgc_count\tgc_minor_ms\tgc_major_ms\tgc_incremental_ms\tgc_longest_ms\theap_used_mb\theap_total_mb\trss_mb\n',
  );
  const start = performance.now();
  setInterval(() => {
    const memory = process.memoryUsage();
    appendFileSync(
      file,
      `${(performance.now() - start).toFixed(0)}\t${ms(delay.max)}\t${ms(delay.percentile(99))}\t${ms(delay.mean)}\t${gc.count}\t${gc.minor.toFixed(2)}\t${gc.major.toFixed(2)}\t${gc.incremental.toFixed(2)}\t${gc.longest.toFixed(2)}\t${(memory.heapUsed / 1048576).toFixed(1)}\t${(memory.heapTotal / 1048576).toFixed(1)}\t${(memory.rss / 1048576).toFixed(1)}\n`,
    );
    delay.reset();
    gc = { minor: 0, major: 0, incremental: 0, weakcb: 0, longest: 0, count: 0 };
  }, 100).unref();
}
