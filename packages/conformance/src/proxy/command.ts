// `plant-store-conformance proxy` (and `plant-store conformance proxy`): the validating proxy's one entry. It listens
// until SIGINT or SIGTERM (or the caller's signal), then lets the requests under way finish, prints the summary,
// writes the report and resolves to the exit code: 0 no violation seen, 1 at least one, 2 a usage error.
import { writeFileSync } from 'node:fs';
import { DEFAULT_COMMAND } from '../arguments.js';
import { loadConformanceContract } from '../contract.js';
import { escapeControls } from '../control-characters.js';
import { ProxyUsageError, parseProxyArguments, proxyUsage } from './arguments.js';
import { startProxy } from './proxy-server.js';
import { Violations } from './violations.js';

export interface ProxyIo {
  stdout: (line: string) => void;
  stderr: (line: string) => void;
  /** Stops the proxy as SIGINT or SIGTERM do; without it the command listens for those signals itself. */
  signal?: AbortSignal;
  /** Told the proxy's URL once it listens. */
  listening?: (url: string) => void;
  /** How the command was typed, for the usage and the messages: `plant-store conformance` unless given. */
  command?: string;
}

/** How long requests under way at the stop may take to finish, and be checked, before their connections are cut. */
const GRACE_MS = 2_000;

/** Resolves when `signal` aborts, or at the first SIGINT or SIGTERM when there is no signal (a second one exits). */
function stopped(signal: AbortSignal | undefined): Promise<void> {
  if (signal) {
    return new Promise((resolve) => {
      if (signal.aborted) resolve();
      else signal.addEventListener('abort', () => resolve(), { once: true });
    });
  }
  return new Promise((resolve) => {
    const stop = (name: NodeJS.Signals) => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      process.once(name, () => process.exit(name === 'SIGINT' ? 130 : 143));
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

export async function proxyCommand(argv: string[], io: ProxyIo): Promise<number> {
  const command = io.command ?? DEFAULT_COMMAND;
  const name = `${command} proxy`;
  let options: Exclude<ReturnType<typeof parseProxyArguments>, 'help'>;
  try {
    const parsed = parseProxyArguments(argv);
    if (parsed === 'help') {
      io.stdout(proxyUsage(command));
      return 0;
    }
    options = parsed;
  } catch (error) {
    if (!(error instanceof ProxyUsageError)) throw error;
    io.stderr(`${name}: ${error.message}\n\n${proxyUsage(command)}`);
    return 2;
  }
  const contract = loadConformanceContract();
  const violations = new Violations();
  const startedAt = new Date();
  const upstream = options.upstream.href;
  let proxy: Awaited<ReturnType<typeof startProxy>>;
  try {
    proxy = await startProxy(options, contract, violations);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    io.stderr(`${name}: cannot listen on ${options.host}:${options.port} (${code})`);
    return 2;
  }
  io.stdout(
    `${name}: listening on ${proxy.url}, forwarding to ${upstream}, checking contract ` +
      `${contract.version}; Ctrl-C or SIGTERM stops it and writes the report`,
  );
  io.listening?.(proxy.url);
  await stopped(io.signal);
  io.stderr(
    `${name}: stopping; requests under way get ${GRACE_MS / 1000} s to finish` +
      `${io.signal ? '' : ' (a second Ctrl-C or SIGTERM ends it at once)'}`,
  );
  await proxy.close(GRACE_MS);
  for (const line of violations.summary()) io.stdout(escapeControls(line));
  if (options.report) {
    writeFileSync(options.report, `${JSON.stringify(violations.report(upstream, startedAt), null, 2)}\n`);
    io.stdout(`report written to ${options.report}`);
  }
  const failed = violations.count > 0;
  io.stdout(failed ? 'FAILED: the contract was broken (see above).' : 'PASSED: no violation of the contract seen.');
  return failed ? 1 : 0;
}
