// The results as one JSON document (--report-json), for CI steps that read them rather than a person: the outcome,
// every check's tally, each failure with the promise of the contract it broke and the curl commands that show it,
// what was skipped, the seed and the command that replays the run, and what cleanup left behind.
import type { ConformanceOptions } from './arguments.js';
import type { CleanupOutcome } from './cleanup.js';
import { curlOf } from './curl.js';
import type { LeftoverOutcome } from './leftovers.js';
import { CHECKS, type CheckName, type Results } from './report.js';

export interface JsonReportContext {
  outcome: 'passed' | 'failed' | 'interrupted';
  options: ConformanceOptions;
  /** The contract version the run checked. */
  contract: string;
  seconds: number;
  /** The command line that sends the same requests again. */
  replay: string;
  cleanup: CleanupOutcome;
  /** What an earlier run with the same seed had left in the block, cleared first. */
  leftovers: LeftoverOutcome;
  /** Why the run stopped early (the service stopped answering), when it did. */
  fatal: string | undefined;
}

export interface JsonReport {
  tool: 'plant-store-conformance';
  outcome: JsonReportContext['outcome'];
  baseUrl: string;
  contract: string;
  seed: number;
  replay: string;
  seconds: number;
  judged: CheckName[];
  checks: { operationId: string; check: CheckName; passed: number; failed: number }[];
  failures: { operationId: string; check: CheckName; promise: string; message: string; curl: string[] }[];
  skipped: { operationId: string; check: CheckName; why: string }[];
  cleanup: { deleted: number; left: { principal: string; id: string }[] };
  leftovers: { found: number; deleted: number; kept: { principal: string; id: string }[] };
  fatal: string | null;
}

export function jsonReport(results: Results, context: JsonReportContext): JsonReport {
  const { options } = context;
  return {
    tool: 'plant-store-conformance',
    outcome: context.outcome,
    baseUrl: options.baseUrl.href,
    contract: context.contract,
    seed: options.seed,
    replay: context.replay,
    seconds: Number(context.seconds.toFixed(3)),
    judged: [...options.checks],
    checks: results.rows(),
    failures: results.failures.map((failure) => ({
      operationId: failure.operationId,
      check: failure.check,
      promise: CHECKS[failure.check],
      message: failure.message,
      curl: failure.exchanges.map((exchange) => curlOf(exchange.request, exchange.url)),
    })),
    skipped: results.skipped,
    cleanup: {
      deleted: context.cleanup.deleted,
      left: context.cleanup.left.map(({ principal, id }) => ({ principal, id: String(id) })),
    },
    leftovers: {
      found: context.leftovers.found,
      deleted: context.leftovers.deleted,
      kept: context.leftovers.kept.map(({ principal, id }) => ({ principal, id: String(id) })),
    },
    fatal: context.fatal ?? null,
  };
}
