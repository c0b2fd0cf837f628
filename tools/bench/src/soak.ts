// Sustained load (`pnpm test:soak`): reads and writes for N seconds on the SQLite service; passes when nothing but
// 2xx came back and memory stayed flat (the last tenth of the run within 25% of the second tenth).
import { targets } from './targets.js';
import { rssMb, wrkAgainst } from './wrk.js';

export async function soak(seconds: number, connections: number): Promise<boolean> {
  const target = targets(false)[0]!;
  const running = await target.start(3990);
  const samples: number[] = [];
  const sampler = setInterval(() => samples.push(rssMb(running.pid)), 1000);
  try {
    const half = Math.floor(connections / 2);
    const [reads, writes] = await Promise.all([
      wrkAgainst(running, { scenario: 'get', base: 0, seconds, connections: half }),
      wrkAgainst(running, { scenario: 'create', base: 5_000_000, seconds, connections: connections - half }),
    ]);
    const tenth = Math.max(1, Math.floor(samples.length / 10));
    const average = (list: number[]) => list.reduce((a, b) => a + b, 0) / list.length;
    const early = average(samples.slice(tenth, 2 * tenth));
    const late = average(samples.slice(-tenth));
    const flat = late <= early * 1.25;
    const clean = reads.non2xx === 0 && writes.non2xx === 0;
    console.log(
      `soak ${seconds}s: reads ${reads.requestsPerSec.toFixed(0)}/s (p99 ${reads.p99Ms} ms), writes ${writes.requestsPerSec.toFixed(0)}/s (p99 ${writes.p99Ms} ms)`,
    );
    console.log(
      `errors: ${reads.non2xx + writes.non2xx}; RSS early ${early.toFixed(0)} MB, late ${late.toFixed(0)} MB, max ${Math.max(...samples).toFixed(0)} MB`,
    );
    console.log(clean && flat ? 'soak: PASS' : 'soak: FAIL');
    return clean && flat;
  } finally {
    clearInterval(sampler);
    await running.stop();
  }
}
