// Runs the open-loop generator (open-loop-generator.ts) pinned to core 1 for one plan and returns its figures.
import { fileURLToPath } from 'node:url';
import { runToEnd } from './children.js';
import type { Judged, Percentiles, Verdict } from './send-schedule.js';
import { rssSampler } from './wrk.js';

const GENERATOR = fileURLToPath(new URL('./open-loop-generator.ts', import.meta.url));

/** Latency from the intended send time, each percentile with its verdict against the generator's lag. */
export interface Latency extends Percentiles {
  verdicts: Record<Judged, Verdict>;
}

export interface OpenLoopResult {
  get: Latency;
  create: Latency;
  all: Latency;
  sent: number;
  answered: number;
  errors: number;
  non2xx: number;
  achievedRate: number;
  /** The generator's CPU time over wall time while sending (its alarm thread included). */
  generatorCpu: number;
  /** How often the alarm woke the generator's loop; the other sends left while it was awake for answers. */
  alarmRings: number;
  /** How late the generator's sends left their intended times, in ms. */
  lag: Percentiles;
  maxBacklog: number;
  maxRssMb: number;
}

export async function openLoop(plan: {
  url: string;
  rate: number;
  seconds: number;
  kind: 'get' | 'create' | 'mixed';
  tokens: string[];
  base: number;
  serverPid: number;
  connections?: number;
}): Promise<OpenLoopResult> {
  const { serverPid, ...rest } = plan;
  const peakRss = rssSampler(serverPid);
  const run = await runToEnd('taskset', ['-c', '1', process.execPath, '--import', 'tsx', GENERATOR], {
    ...process.env,
    OPEN_LOOP: JSON.stringify({ connections: 64, ...rest, rate: Math.max(1, rest.rate) }),
  });
  if (run.code !== 0) throw new Error(`open-loop generator exited with ${run.code}: ${run.stderr}`);
  const output = run.stdout;
  return {
    ...(JSON.parse(output.trim().split('\n').at(-1)!) as Omit<OpenLoopResult, 'maxRssMb'>),
    maxRssMb: peakRss(),
  };
}
