// The one warm-up rule for every target and scenario: runs until two in a row agree on CPU per request and the last
// is near the lowest so far (a busy neighbour only adds CPU per request), or a cap; a capped warm-up is not steady, and
// its figures are marked so and left out of every ratio (ratios.ts). CPU per request, not req/s: it shakes far less.

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
export const WARM_UP_MAX_RUNS = 8;

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
