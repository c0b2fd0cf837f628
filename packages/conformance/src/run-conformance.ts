// `plant-store conformance`: checks a running deployment against openapi.yaml from outside, with only a URL and
// tokens (no configuration, no database). The one entry the CLI calls; exit code 0 pass, 1 a failed check, 2 usage.
import { writeFileSync } from 'node:fs';
import { SERVED_CONTRACT_PATH } from '@plant-store/contract';
import {
  type ConformanceOptions,
  ConformanceUsageError,
  conformanceUsage,
  DEFAULT_COMMAND,
  parseConformanceArguments,
} from './arguments.js';
import { cleanUp } from './cleanup.js';
import { type ConformanceContract, loadConformanceContract } from './contract.js';
import { escapeControls } from './control-characters.js';
import { curlOf } from './curl.js';
import { runGeneratedPhase } from './generated-phase.js';
import {
  AnswerTooLarge,
  type Exchange,
  HttpClient,
  Interrupted,
  type Principal,
  TransportError,
} from './http-client.js';
import { jsonReport } from './json-report.js';
import { junitXml } from './junit.js';
import { clearLeftovers, type LeftoverOutcome, leftoverLine } from './leftovers.js';
import { PROTOCOL_PHASES } from './protocol-phases.js';
import { CHECKS, Results, renderTable } from './report.js';
import { Ledger, reservedRange } from './reserved-ids.js';
import { callerFor, type RunContext } from './run-context.js';
import { runNamePrefix } from './run-names.js';
import { runStatefulPhase } from './stateful-model.js';
import { checkWritesDurable } from './writes-durable.js';

export interface ConformanceIo {
  stdout: (line: string) => void;
  stderr: (line: string) => void;
  env: Record<string, string | undefined>;
  /** How the command was typed, for the usage and the replay line: `plant-store conformance` unless given. */
  command?: string;
  /** The contract to check against: the bundled one unless given (a test of a change to the contract). */
  contract?: ConformanceContract;
}

/** The command line that replays a run (tokens from the environment). */
function replayCommand(command: string, options: ConformanceOptions): string {
  const parts = [command, `--base-url ${options.baseUrl.href}`, `--seed ${options.seed}`];
  if (options.requests !== undefined) parts.push(`--requests ${options.requests}`);
  if (options.durationS !== undefined) parts.push(`--duration ${options.durationS}`);
  if (options.checks.size < Object.keys(CHECKS).length) parts.push(`--checks ${[...options.checks].join(',')}`);
  if (options.readOnly) parts.push('--read-only');
  return parts.join(' ');
}

/** Refuses tokens the service does not take, before anything is written (a usage error, not a failed check). */
async function checkTokens(run: RunContext): Promise<void> {
  const list = run.contract.byRole('list');
  if (!list) return;
  const given: [Principal, string][] = [['token', '--token']];
  if (run.options.secondToken) given.push(['second-token', '--second-token']);
  if (run.options.readToken) given.push(['read-token', '--read-token']);
  for (const [principal, option] of given) {
    const exchange = await run.client.send({ method: 'GET', target: `${list.path}?limit=1`, principal }, run.signal);
    if (exchange.status === 401 || exchange.status === 403) {
      throw new ConformanceUsageError(
        `the service answered ${exchange.status} to ${option} on ${list.operationId}: is it a live token of this deployment with the read scope?`,
      );
    }
  }
}

/** Compares the contract version the deployment serves (at SERVED_CONTRACT_PATH, when it does) with this tool's. */
async function checkServedContract(run: RunContext): Promise<void> {
  const operation = '(deployment)';
  const request = { method: 'GET', target: SERVED_CONTRACT_PATH };
  let exchange: Exchange;
  try {
    exchange = await run.client.send(request, run.signal);
  } catch (error) {
    if (!(error instanceof AnswerTooLarge)) throw error;
    const url = run.client.url(request.target);
    run.results.record(operation, 'served-contract', error.message, [
      { request, url, status: 0, headers: {}, text: '', ms: 0 },
    ]);
    return;
  }
  if (exchange.status !== 200) {
    run.results.skip(operation, 'served-contract', `GET ${SERVED_CONTRACT_PATH} answered ${exchange.status}`);
    return;
  }
  let served: string | undefined;
  try {
    served = (JSON.parse(exchange.text) as { info?: { version?: string } }).info?.version;
  } catch {
    served = undefined;
  }
  run.results.record(
    operation,
    'served-contract',
    served === run.contract.version
      ? undefined
      : `the deployment serves contract ${served ?? '(unreadable)'}, this tool checks ${run.contract.version}`,
    [exchange],
  );
}

/** Runs `plant-store conformance` with `args`; resolves to the exit code. `signal` interrupts (Ctrl-C). */
export async function runConformance(
  args: string[],
  io: ConformanceIo,
  signal = new AbortController().signal,
): Promise<number> {
  const command = io.command ?? DEFAULT_COMMAND;
  let options: ConformanceOptions;
  try {
    const parsed = parseConformanceArguments(args, io.env);
    if (parsed === 'help') {
      io.stdout(conformanceUsage(command));
      return 0;
    }
    options = parsed;
  } catch (error) {
    if (!(error instanceof ConformanceUsageError)) throw error;
    io.stderr(`${command}: ${error.message}\n\n${conformanceUsage(command)}`);
    return 2;
  }
  const started = Date.now();
  const contract = io.contract ?? loadConformanceContract();
  const results = new Results(options.checks);
  const client = new HttpClient({
    baseUrl: options.baseUrl,
    tokens: { token: options.token, 'second-token': options.secondToken, 'read-token': options.readToken },
    userAgent: `plant-store-conformance (contract ${contract.version})`,
  });
  const range = reservedRange(options.seed);
  const run: RunContext = {
    options,
    contract,
    client,
    results,
    range,
    ledger: new Ledger(),
    namePrefix: runNamePrefix(options.seed),
    signal,
    call: callerFor(client, results, signal),
  };
  io.stdout(
    `${command}: ${options.baseUrl.href}, contract ${contract.version}, seed ${options.seed}` +
      `${options.readOnly ? ', read-only' : `, writing only ids ${range.first} to ${range.last}`}`,
  );
  let interrupted = false;
  let fatal: string | undefined;
  let generated = 0;
  let leftovers: LeftoverOutcome = { found: 0, deleted: 0, kept: [] };
  try {
    await checkTokens(run);
    await checkServedContract(run);
    leftovers = await clearLeftovers(run);
    const line = leftoverLine(leftovers, options.seed);
    if (line) io.stdout(line);
    await runStatefulPhase(run);
    for (const phase of PROTOCOL_PHASES) {
      if (!signal.aborted && phase.checks.some((check) => results.judges(check))) await phase.run(run);
    }
    const budget =
      options.durationS === undefined
        ? { requests: options.requests ?? 0 }
        : { deadline: started + options.durationS * 1000 };
    generated = await runGeneratedPhase(run, budget);
    if (!signal.aborted && results.judges('writes-durable')) await checkWritesDurable(run);
  } catch (error) {
    if (error instanceof ConformanceUsageError) {
      await cleanUp(run);
      io.stderr(`${command}: ${error.message}`);
      return 2;
    }
    if (error instanceof Interrupted) interrupted = true;
    else if (error instanceof TransportError) fatal = error.message;
    else throw error;
  }
  if (signal.aborted) interrupted = true;
  if (interrupted) io.stderr(`${command}: interrupted; deleting what the run created`);
  const cleanup = await cleanUp(run).catch((error: unknown) => {
    fatal ??= (error as Error).message;
    return { deleted: 0, left: [] };
  });
  const seconds = (Date.now() - started) / 1000;
  const replay = replayCommand(command, options);

  for (const line of renderTable(results)) io.stdout(line);
  for (const skip of results.skipped) io.stdout(`skipped ${skip.operationId}/${skip.check}: ${skip.why}`);
  if (results.failures.length > 0) {
    io.stdout('');
    io.stdout(
      'Failures (the first 3 of each check), each with a curl that sends the same request and the promise broken:',
    );
    results.failures.forEach((failure, index) => {
      io.stdout(`${index + 1}. ${failure.operationId}/${failure.check}: ${failure.message}`);
      for (const exchange of failure.exchanges) io.stdout(`   ${curlOf(exchange.request, exchange.url)}`);
      io.stdout(`   The promise it broke: ${CHECKS[failure.check]}.`);
    });
    io.stdout(`Replay the run: ${replay}`);
  }
  const methods = [...client.methods].map(([method, count]) => `${method} ${count}`).join(', ');
  io.stdout('');
  io.stdout(
    `${client.sent} requests (${methods}) in ${seconds.toFixed(1)} s, ${generated} generated; ` +
      `${client.retried} answers waited on for Retry-After (${(client.waitedMs / 1000).toFixed(1)} s); ` +
      `deleted ${cleanup.deleted} plants the run created${cleanup.left.length ? `, ${cleanup.left.length} LEFT BEHIND` : ''}.`,
  );
  if (options.junit) {
    writeFileSync(options.junit, junitXml(results, { seed: options.seed, seconds }));
    io.stdout(`JUnit XML written to ${options.junit}`);
  }
  const failed = results.failedChecks();
  if (options.reportJson) {
    const outcome = interrupted ? 'interrupted' : failed.length > 0 || fatal ? 'failed' : 'passed';
    const report = jsonReport(results, {
      outcome,
      options,
      contract: contract.version,
      seconds,
      replay,
      cleanup,
      leftovers,
      fatal,
    });
    writeFileSync(options.reportJson, `${JSON.stringify(report, null, 2)}\n`);
    io.stdout(`JSON report written to ${options.reportJson}`);
  }
  if (fatal) io.stderr(`${command}: ${escapeControls(fatal)}`);
  if (interrupted) {
    io.stdout('INTERRUPTED: the run did not finish.');
    return 1;
  }
  if (failed.length > 0 || fatal) {
    io.stdout(`FAILED: ${failed.join(', ') || 'the service did not answer'} (seed ${options.seed})`);
    return 1;
  }
  io.stdout(`PASSED: every check held (seed ${options.seed}).`);
  return 0;
}
