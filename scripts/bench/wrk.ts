// Runs wrk (Debian's) pinned to core 1 against a server pinned to core 0, and reads its figures.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface WrkResult {
  requestsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  maxRssMb: number;
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

function millis(text: string | undefined): number {
  const match = /([\d.]+)(us|ms|s)/.exec(text ?? '');
  if (!match) return Number.NaN;
  const value = Number(match[1]);
  return match[2] === 'us' ? value / 1000 : match[2] === 's' ? value * 1000 : value;
}

function rssMb(pid: number): number {
  try {
    const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Number(kb) / 1024 : 0;
  } catch {
    return 0;
  }
}

export type Scenario = 'get' | 'create' | 'delete';

export async function wrk(options: {
  url: string;
  scenario: Scenario;
  token: string;
  base: number;
  seconds: number;
  connections: number;
  serverPid: number;
}): Promise<WrkResult> {
  const args = ['-c', '1', 'wrk', '-t1', `-c${options.connections}`, `-d${options.seconds}s`, '--latency'];
  if (options.scenario === 'get') {
    args.push('-H', `Authorization: Bearer ${options.token}`, `${options.url}/plants?limit=100`);
  } else {
    const script = join(tmpdir(), `plant-store-bench-${options.scenario}.lua`);
    writeFileSync(script, options.scenario === 'create' ? CREATE : DELETE);
    args.push('-s', script, options.url);
  }
  let maxRss = rssMb(options.serverPid);
  const sampler = setInterval(() => {
    maxRss = Math.max(maxRss, rssMb(options.serverPid));
  }, 200);
  const output = await new Promise<string>((resolve, reject) => {
    const child = spawn('taskset', args, {
      env: { ...process.env, TOKEN: options.token, BASE: String(options.base) },
    });
    let text = '';
    child.stdout.on('data', (chunk) => {
      text += chunk;
    });
    child.stderr.on('data', (chunk) => {
      text += chunk;
    });
    child.on('error', reject);
    child.on('exit', () => resolve(text));
  });
  clearInterval(sampler);
  return {
    requestsPerSec: Number(/Requests\/sec:\s+([\d.]+)/.exec(output)?.[1] ?? Number.NaN),
    p50Ms: millis(/\s50%\s+(\S+)/.exec(output)?.[1]),
    p99Ms: millis(/\s99%\s+(\S+)/.exec(output)?.[1]),
    non2xx: Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(output)?.[1] ?? 0),
    maxRssMb: Math.round(maxRss),
  };
}
