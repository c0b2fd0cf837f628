// Warm-up until steady: a server just started (or just seeded) costs more CPU per request for a while (its code is
// still being optimised, its caches filled), and a fixed 2 s did not cover it for every target alike: bare Fastify
// measured right after its 2 s cost 51.7 us of CPU per request where, warmer, it cost 41-45 us (docs/benchmarks.md).
// So every target, on every scenario it is measured on, and each side of an A/B, is warmed up by the same rule: runs of the same length until two in a row agree on CPU per
// request within a tolerance and the last is within it of the lowest run so far, or a cap is reached. CPU per request,
// not requests a second: on a shared machine the latter moves with whatever else runs, the former far less. The
// lowest run is the floor because a busy neighbour only adds CPU per request (contended caches, wake-ups), never takes
// it away: two runs that agree well above an earlier one were both slowed, not steady (seen: SQLite mixed "steady" at
// 128 us after a run at 84, then measured at 84).

export interface WarmUpRun {
  cpuUsPerRequest: number;
}

export interface WarmUp<R extends WarmUpRun> {
  /** Every warm-up run, in order; the last is the steady one unless `steady` is false. */
  runs: R[];
  /** True when the last two runs agreed within the tolerance; false when the cap stopped it. */
  steady: boolean;
}

/** How far apart (relative) two runs' CPU per request may be to count as steady, and the most runs by default. */
export const WARM_UP_TOLERANCE = 0.05;
export const WARM_UP_MAX_RUNS = 6;

/**
 * Calls `run` until two consecutive runs' CPU per request differ by at most `tolerance` (relative) and the last is
 * within `tolerance` of the lowest so far, at most `maxRuns` times.
 */
export async function warmUntilSteady<R extends WarmUpRun>(
  run: () => Promise<R>,
  { tolerance = WARM_UP_TOLERANCE, maxRuns = WARM_UP_MAX_RUNS }: { tolerance?: number; maxRuns?: number } = {},
): Promise<WarmUp<R>> {
  const runs: R[] = [await run()];
  while (runs.length < Math.max(2, maxRuns)) {
    const current = await run();
    const previous = runs.at(-1)!;
    runs.push(current);
    const lowest = Math.min(...runs.map((r) => r.cpuUsPerRequest));
    if (
      agree(previous.cpuUsPerRequest, current.cpuUsPerRequest, tolerance) &&
      agree(lowest, current.cpuUsPerRequest, tolerance)
    ) {
      return { runs, steady: true };
    }
  }
  return { runs, steady: false };
}

/** A warm-up's runs as the bench's lines print them: `CPU per request 52.2 -> 46.4 us`. */
export function cpuTrail(warm: WarmUp<WarmUpRun>): string {
  return `CPU per request ${warm.runs.map((r) => r.cpuUsPerRequest.toFixed(1)).join(' -> ')} us`;
}

/** ` (not steady at the cap)` where the cap stopped the warm-up, else nothing. */
export function steadiness(warm: WarmUp<WarmUpRun>): string {
  return warm.steady ? '' : ' (not steady at the cap)';
}

function agree(a: number, b: number, tolerance: number): boolean {
  return Number.isFinite(a) && Number.isFinite(b) && Math.abs(a - b) <= tolerance * Math.max(a, b);
}
