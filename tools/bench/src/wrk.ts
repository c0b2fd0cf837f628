// Runs wrk (Debian's) pinned to core 1 (or the cores given) against a server pinned to core 0, and reads its figures. Closed loop: each
// connection sends its next request when the last one is answered, so these give capacity, not latency under load.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runToEnd } from './children.js';
import { cpuSeconds, treePids } from './cpu.js';

export interface WrkResult {
  requestsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  maxRssMb: number;
  /** Requests answered in the run. */
  requests: number;
  /** The server's CPU time over the run (every thread), in seconds. */
  cpuSeconds: number;
  /** The server's CPU time per request, in microseconds. */
  cpuUsPerRequest: number;
}

/** Stops the benchmark at once, with the command that installs wrk, when it is not on the PATH. */
export function requireWrk(): void {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' });
  } catch (error) {
    // wrk --version exits 1 after printing its version; only a missing binary is ENOENT.
    if ((error as { code?: string }).code === 'ENOENT') {
      console.error('bench: wrk is not installed. Install it with:\n\n  apt-get install -y wrk\n');
      process.exit(2);
    }
  }
}

const CREATE = `local n = 0
local base = tonumber(os.getenv("BASE"))
local auth = "Bearer " .. os.getenv("TOKEN")
request = function()
  n = n + 1
  local body = string.format('{"id":%d,"name":"bench plant %d","tag":"bench"}', base + n, n)
  return wrk.format("POST", "/plants", {["Content-Type"] = "application/json", ["Authorization"] = auth}, body)
end`;

const DELETE = `local n = 0
local base = tonumber(os.getenv("BASE"))
local auth = "Bearer " .. os.getenv("TOKEN")
request = function()
  n = n + 1
  return wrk.format("DELETE", string.format("/plants/%d", base + n), {["Authorization"] = auth})
end`;

// Many principals, a random page size 10..100 per read, and one create in ten: writes invalidate the owners'
// cached pages, so reads keep meeting the cache-miss path. Each wrk thread (the workers stage runs several) has its
// own id range and random sequence.
const MIXED = `local threads = 0
function setup(thread)
  threads = threads + 1
  thread:set("tid", threads)
end
local n = 0
local base
local auths = {}
function init(args)
  base = tonumber(os.getenv("BASE")) + tid * 1000000
  for token in string.gmatch(os.getenv("TOKENS"), "[^,]+") do auths[#auths + 1] = "Bearer " .. token end
  math.randomseed(tonumber(os.getenv("SEED")) + tid * 7919)
end
request = function()
  local auth = auths[math.random(#auths)]
  if math.random(10) == 1 then
    n = n + 1
    local body = string.format('{"id":%d,"name":"mixed plant %d","tag":"bench"}', base + n, n)
    return wrk.format("POST", "/plants", {["Content-Type"] = "application/json", ["Authorization"] = auth}, body)
  end
  return wrk.format("GET", string.format("/plants?limit=%d", math.random(10, 100)), {["Authorization"] = auth})
end`;

function millis(text: string | undefined): number {
  const match = /([\d.]+)(us|ms|s)/.exec(text ?? '');
  if (!match) return Number.NaN;
  const value = Number(match[1]);
  return match[2] === 'us' ? value / 1000 : match[2] === 's' ? value * 1000 : value;
}

export function rssMb(pid: number): number {
  try {
    const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Number(kb) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** The RSS of `pid` and its live descendants together, in MB: `serve --workers N`'s primary and its workers. */
export const treeRssMb = (pid: number) => treePids(pid).reduce((sum, each) => sum + rssMb(each), 0);

/** Samples a process's RSS (`read`: its own unless given) every 200 ms until stopped; returns the peak in MB. */
export function rssSampler(pid: number, read: (pid: number) => number = rssMb): () => number {
  let max = read(pid);
  const timer = setInterval(() => {
    max = Math.max(max, read(pid));
  }, 200);
  return () => {
    clearInterval(timer);
    return Math.round(Math.max(max, read(pid)));
  };
}

export type Scenario = 'get' | 'create' | 'delete' | 'mixed';

export async function wrk(options: {
  url: string;
  scenario: Scenario;
  token: string;
  tokens?: string[];
  base: number;
  seconds: number;
  connections: number;
  serverPid: number;
  /** Extra request headers of the `get` scenario, e.g. `If-None-Match: W/"..."`. */
  headers?: string[];
  /** The `get` scenario's path (default the hot read, `/plants?limit=100`); an empty token sends no Authorization. */
  path?: string;
  /** wrk's cores (`taskset -c`) and threads: core 1 and one thread unless given. */
  cores?: string;
  threads?: number;
  /** The server's CPU seconds so far: its one process unless given (cpu.ts, treeCpuSeconds for several). */
  cpu?: (pid: number) => number;
  /** The server's RSS in MB: its one process unless given (treeRssMb for several). */
  rss?: (pid: number) => number;
}): Promise<WrkResult> {
  const args = [
    '-c',
    options.cores ?? '1',
    'wrk',
    `-t${options.threads ?? 1}`,
    `-c${options.connections}`,
    `-d${options.seconds}s`,
    '--latency',
  ];
  const cpu = options.cpu ?? cpuSeconds;
  if (options.scenario === 'get') {
    if (options.token) args.push('-H', `Authorization: Bearer ${options.token}`);
    for (const header of options.headers ?? []) args.push('-H', header);
    args.push(`${options.url}${options.path ?? '/plants?limit=100'}`);
  } else {
    const script = join(tmpdir(), `plant-store-bench-${options.scenario}.lua`);
    const lua = { create: CREATE, delete: DELETE, mixed: MIXED }[options.scenario];
    writeFileSync(script, lua);
    args.push('-s', script, options.url);
  }
  const peakRss = rssSampler(options.serverPid, options.rss);
  const cpuBefore = cpu(options.serverPid);
  const run = await runToEnd('taskset', args, {
    ...process.env,
    TOKEN: options.token,
    TOKENS: (options.tokens ?? [options.token]).join(','),
    BASE: String(options.base),
    SEED: String(options.base % 1_000_003),
  });
  const output = run.stdout + run.stderr;
  if (run.code !== 0) throw new Error(`wrk exited with ${run.code}: ${output}`);
  const maxRssMb = peakRss();
  const used = cpu(options.serverPid) - cpuBefore;
  const requests = Number(/(\d+) requests in/.exec(output)?.[1]);
  const requestsPerSec = Number(/Requests\/sec:\s+([\d.]+)/.exec(output)?.[1]);
  if (!Number.isFinite(requestsPerSec)) throw new Error(`wrk gave no figures:\n${output}`);
  return {
    requestsPerSec,
    p50Ms: millis(/\s50%\s+(\S+)/.exec(output)?.[1]),
    p99Ms: millis(/\s99%\s+(\S+)/.exec(output)?.[1]),
    non2xx: Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(output)?.[1] ?? 0),
    maxRssMb,
    requests,
    cpuSeconds: used,
    cpuUsPerRequest: (used * 1e6) / requests,
  };
}

/** wrk against a running target (its URL, its principals' tokens, its process for CPU and memory) for one scenario. */
export function wrkAgainst(
  server: { url: string; pid: number; token: string; tokens: string[] },
  run: Pick<
    Parameters<typeof wrk>[0],
    'scenario' | 'base' | 'seconds' | 'connections' | 'headers' | 'cores' | 'threads' | 'cpu' | 'rss'
  >,
): Promise<WrkResult> {
  return wrk({ url: server.url, token: server.token, tokens: server.tokens, serverPid: server.pid, ...run });
}
