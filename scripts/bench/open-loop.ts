// Runs the open-loop generator (open-loop-generator.ts) pinned to core 1 for one plan and returns its figures.
import { fileURLToPath } from 'node:url';
import { runToEnd } from './children.js';
import { rssSampler } from './wrk.js';

const GENERATOR = fileURLToPath(new URL('./open-loop-generator.ts', import.meta.url));

export interface Latency {
  count: number;
  p50: number;
  p99: number;
  p999: number;
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
  /** The generator's CPU time over wall time: near 1 means it may have been the bottleneck. */
  generatorCpu: number;
  maxScheduleLagMs: number;
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
