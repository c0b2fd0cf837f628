// Test support: the validating proxy run in this process (its entry function, as the CLI calls it), stopped as
// SIGTERM stops it, with its output, exit code and report.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { proxyCommand } from '../../src/proxy/command.js';
import type { ProxyReport } from '../../src/proxy/violations.js';

export interface StoppedProxy {
  code: number;
  output: string;
  report: ProxyReport;
}

export interface ProxyRun {
  url: string;
  stop(): Promise<StoppedProxy>;
}

export async function startProxyRun(upstream: string, options: string[] = []): Promise<ProxyRun> {
  const folder = mkdtempSync(join(tmpdir(), 'plant-store-proxy-'));
  const report = join(folder, 'report.json');
  const lines: string[] = [];
  const controller = new AbortController();
  let listening: (url: string) => void = () => {};
  const url = new Promise<string>((resolve) => {
    listening = resolve;
  });
  const io = {
    stdout: (line: string) => lines.push(line),
    stderr: (line: string) => lines.push(line),
    signal: controller.signal,
    listening,
  };
  const code = proxyCommand(['--upstream', upstream, '--port', '0', '--report', report, ...options], io);
  const started = await Promise.race([
    url,
    code.then((exit) => Promise.reject(new Error(`exited ${exit}: ${lines.join('\n')}`))),
  ]);
  return {
    url: started,
    async stop() {
      controller.abort();
      const exit = await code;
      try {
        return {
          code: exit,
          output: lines.join('\n'),
          report: JSON.parse(readFileSync(report, 'utf8')) as ProxyReport,
        };
      } finally {
        rmSync(folder, { recursive: true, force: true });
      }
    },
  };
}

/** The rules the report names, as `direction operation rule`, sorted and without repeats. */
export function rulesOf(report: ProxyReport): string[] {
  return [...new Set(report.kinds.map((kind) => `${kind.direction} ${kind.operation} ${kind.rule}`))].sort();
}
