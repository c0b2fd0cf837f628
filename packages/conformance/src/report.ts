// The run's results: a count per operation and check, each failure with the exchanges that show it, and the table
// people read. The check names are stable: CI logs, the JUnit file and the README use them. A problem or a reason
// quotes what the deployment sent, so both are kept with their control characters escaped: the report prints them.
import { SERVED_CONTRACT_PATH } from '@plant-store/contract';
import { escapeControls } from './control-characters.js';
import type { Exchange } from './http-client.js';

/** Every check the run makes, with what it means. */
export const CHECKS = {
  answered: 'every request gets a whole answer within the timeout and 16 MiB (no reset, no hang, no flood)',
  'no-5xx': 'no answer is a server error (a 503 with Retry-After is waited on, not counted)',
  'declared-status': 'the status is one the operation declares (a success only if listed, an error also by default)',
  'expected-status': 'the status is the one this request must get (valid: success; invalid: 400; ...)',
  'content-type':
    'a body is application/json (no charset but UTF-8) where one is declared, and absent where none is (204, HEAD)',
  schema: 'the body matches the declared schema',
  'undeclared-field': 'the body holds no field the schema does not declare',
  'error-shape': 'an error body is {"error": <the status>, "message": <text>}',
  'www-authenticate': 'a 401 carries WWW-Authenticate: Bearer',
  'retry-after': 'a 429 or 503 carries Retry-After (seconds)',
  'declared-header': 'a header the declared response lists is present',
  link: 'Link is <url>; rel="next" pointing at the same list with a cursor, and present whenever more plants follow',
  head: 'HEAD answers as GET does, without a body',
  'model-listing': 'every plant created appears exactly once across the pages, in ascending id order, as sent',
  'id-exact': 'ids round-trip exactly beyond 2^53: a neighbour id is another plant',
  'deleted-gone': 'a deleted plant is listed no more, and deleting it again is a 404',
  'principal-isolation': "a principal never sees, deletes or collides with another principal's plants",
  'response-headers-conformance':
    'a declared response header, when sent, holds a value its schema allows; an ETag is "..." or W/"..."',
  'ignored-auth':
    'every secured operation answers 401 (Error shape, WWW-Authenticate) to no token and to wrong tokens, even on a URL just served to a token',
  'unsupported-method':
    "a method the path does not declare is a 405 in the Error shape whose Allow lists the path's methods",
  'missing-required-header':
    'a request without a header the contract requires is refused (a body without Content-Type: 415), never served',
  'negative-data-rejection': 'a request that breaks a rule of the contract is refused with a 4xx, never accepted',
  'positive-data-acceptance': 'a request that keeps every rule is never refused as invalid (400, 413, 415, 422)',
  'ensure-resource-availability': 'a created plant is listed right away, also by a list URL fetched just before',
  'use-after-free': 'a deleted plant is gone at once: deleting it again is a 404, no list shows it, its id is free',
  'cache-isolation':
    "a list URL principal A was just served (before and right after A's writes) never gets principal B A's plants",
  'etag-per-principal':
    "If-None-Match works for its principal (304 while current, 200 after a write) and never gets B a 304 on A's ETag",
  idempotency:
    'Idempotency-Key: a repeat gets the same answer with Idempotent-Replayed: true, another body 422, concurrent repeats one create',
  'link-walk-under-writes':
    'a Link walk lists every plant present throughout exactly once while creates and deletes land between its pages',
  'header-fuzzing':
    'control bytes, non-ASCII and huge values in headers get a 4xx in the Error shape or a success: never a 5xx, a hang or no answer',
  'update-applied':
    'an acknowledged update is seen at once: the next list shows its name, a read of the plant every field it sent',
  'writes-durable': 'every plant the run created and did not delete is still listed at its end',
  'served-contract': `the deployment serves the contract version this tool checks (${SERVED_CONTRACT_PATH})`,
  cleanup: 'everything the run created was deleted again',
} as const;

export type CheckName = keyof typeof CHECKS;

export interface Failure {
  operationId: string;
  check: CheckName;
  message: string;
  /** The requests that show it, in order (a stateful failure needs the sequence). */
  exchanges: Exchange[];
}

interface Tally {
  passed: number;
  failed: number;
}

/** How many failures of one operation and check keep their details; the rest are counted. */
const DETAILED = 3;

export class Results {
  private readonly tallies = new Map<string, Tally>();
  readonly failures: Failure[] = [];
  readonly skipped: { operationId: string; check: CheckName; why: string }[] = [];

  /** `judged`: the checks whose verdicts count (--checks, --exclude-checks); every check unless given. */
  constructor(private readonly judged?: ReadonlySet<CheckName>) {}

  /** Whether the run judges `check` (a phase whose checks are all left out sends nothing). */
  judges(check: CheckName): boolean {
    return !this.judged || this.judged.has(check);
  }

  /** One verdict: a pass when `problem` is undefined. A check the run does not judge is not recorded. */
  record(operationId: string, check: CheckName, problem: string | undefined, exchanges: Exchange[] = []): void {
    if (this.judged && !this.judged.has(check)) return;
    const key = `${operationId}\u0000${check}`;
    const tally = this.tallies.get(key) ?? { passed: 0, failed: 0 };
    this.tallies.set(key, tally);
    if (problem === undefined) {
      tally.passed++;
      return;
    }
    tally.failed++;
    if (tally.failed <= DETAILED) {
      this.failures.push({ operationId, check, message: escapeControls(problem), exchanges });
    }
  }

  skip(operationId: string, check: CheckName, reason: string): void {
    if (this.judged && !this.judged.has(check)) return;
    const why = escapeControls(reason);
    if (!this.skipped.some((s) => s.operationId === operationId && s.check === check && s.why === why)) {
      this.skipped.push({ operationId, check, why });
    }
  }

  /** Operation, check, passed, failed; sorted by operation then check order. */
  rows(): { operationId: string; check: CheckName; passed: number; failed: number }[] {
    const order = Object.keys(CHECKS);
    return [...this.tallies]
      .map(([key, tally]) => {
        const [operationId, check] = key.split('\u0000') as [string, CheckName];
        return { operationId, check, ...tally };
      })
      .sort((a, b) => a.operationId.localeCompare(b.operationId) || order.indexOf(a.check) - order.indexOf(b.check));
  }

  get failed(): number {
    return this.rows().reduce((sum, row) => sum + row.failed, 0);
  }

  /** The checks that failed, as `operationId/check`. */
  failedChecks(): string[] {
    return this.rows()
      .filter((row) => row.failed > 0)
      .map((row) => `${row.operationId}/${row.check}`);
  }
}

/** The results as a plain-text table. */
export function renderTable(results: Results): string[] {
  const rows = results
    .rows()
    .map((row) => [row.operationId, row.check, String(row.passed), String(row.failed), row.failed > 0 ? 'FAIL' : 'ok']);
  const header = ['OPERATION', 'CHECK', 'PASSED', 'FAILED', ''];
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, column) =>
        column === 2 || column === 3 ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!),
      )
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)];
}
