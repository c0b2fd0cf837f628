// Runs the open-loop generator (open-loop-generator.ts) pinned to core 1 for one plan and returns its figures.
import { fileURLToPath } from 'node:url';
import { runToEnd } from './children.js';
import { cpuSeconds } from './cpu.js';
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
  /**
   * The server's CPU time (every thread, from /proc) from the generator's start to its end, per request answered. A
   * stream of requests arriving one or two at a time costs more per request than the closed loop's bursts: each
   * arrival wakes the server and each answer wakes the generator on its own.
   */
  serverCpuUsPerRequest: number;
}

/** The share of one core the server used in the run, in percent: its CPU per request times the rate achieved. */
export const serverCoreBusy = (run: OpenLoopResult) => (run.serverCpuUsPerRequest * run.achievedRate) / 1e4;

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
  const cpuBefore = cpuSeconds(serverPid);
  const run = await runToEnd('taskset', ['-c', '1', process.execPath, '--import', 'tsx', GENERATOR], {
    ...process.env,
    OPEN_LOOP: JSON.stringify({ connections: 64, ...rest, rate: Math.max(1, rest.rate) }),
  });
  if (run.code !== 0) throw new Error(`open-loop generator exited with ${run.code}: ${run.stderr}`);
  const cpuUsed = cpuSeconds(serverPid) - cpuBefore;
  const figures = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as Omit<
    OpenLoopResult,
    'maxRssMb' | 'serverCpuUsPerRequest'
  >;
  return {
    ...figures,
    maxRssMb: peakRss(),
    serverCpuUsPerRequest: (cpuUsed * 1e6) / Math.max(1, figures.answered),
  };
}
