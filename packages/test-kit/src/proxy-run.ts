// Test support: the validating proxy run in this process (`plant-store-conformance proxy`, through the entry function
// the CLI calls), stopped as SIGTERM stops it, with its output, exit code and report. The report's type is the
// conformance package's ProxyReport, which its tests name (`startProxyRun<ProxyReport>(...)`).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ConformanceCommandIo, conformanceCommand } from '@plant-store/conformance';

/** What this helper reads of a proxy report: the kinds of violation seen. */
interface ReportKinds {
  kinds: { direction: string; operation: string; rule: string }[];
}

export interface StoppedProxy<Report extends ReportKinds> {
  code: number;
  output: string;
  report: Report;
}

export interface ProxyRun<Report extends ReportKinds> {
  url: string;
  stop(): Promise<StoppedProxy<Report>>;
}

export async function startProxyRun<Report extends ReportKinds>(
  upstream: string,
  options: string[] = [],
): Promise<ProxyRun<Report>> {
  const folder = mkdtempSync(join(tmpdir(), 'plant-store-proxy-'));
  const report = join(folder, 'report.json');
  const lines: string[] = [];
  const controller = new AbortController();
  let listening: (url: string) => void = () => {};
  const url = new Promise<string>((resolve) => {
    listening = resolve;
  });
  // The proxy's own io fields (signal, listening) pass through conformanceCommand to the proxy command.
  const io: ConformanceCommandIo = {
    stdout: (line: string) => lines.push(line),
    stderr: (line: string) => lines.push(line),
    env: {},
    signal: controller.signal,
    listening,
  };
  const code = conformanceCommand(['proxy', '--upstream', upstream, '--port', '0', '--report', report, ...options], io);
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
          report: JSON.parse(readFileSync(report, 'utf8')) as Report,
        };
      } finally {
        rmSync(folder, { recursive: true, force: true });
      }
    },
  };
}

/** The rules the report names, as `direction operation rule`, sorted and without repeats. */
export function rulesOf(report: ReportKinds): string[] {
  return [...new Set(report.kinds.map((kind) => `${kind.direction} ${kind.operation} ${kind.rule}`))].sort();
}
