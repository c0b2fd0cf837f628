// What the phases of a run share: the contract, the client, the results, the reserved ids and the ledger of what was
// created, and `call`, which sends one request and checks its answer.

import type { ConformanceOptions } from './arguments.js';
import { checkAnswer, type Expectation } from './checks.js';
import type { ConformanceContract, ContractOperation } from './contract.js';
import { type Exchange, type HttpClient, type OutgoingRequest, TransportError } from './http-client.js';
import type { Results } from './report.js';
import type { Ledger, ReservedRange } from './reserved-ids.js';

export interface Answer {
  exchange: Exchange;
  /** The parsed JSON body (int64 beyond 2^53 as bigint), when there was one. */
  body: unknown;
}

export interface RunContext {
  options: ConformanceOptions;
  contract: ConformanceContract;
  client: HttpClient;
  results: Results;
  range: ReservedRange;
  ledger: Ledger;
  /** Every plant the run creates has a name that starts with it (run-names.ts): cleanup finds them by it. */
  namePrefix: string;
  /** Aborted on Ctrl-C: stop starting requests (cleanup runs anyway). */
  signal: AbortSignal;
  /** Sends `request` as `operation`, checks the answer; undefined when no answer came (a failure of `answered`). */
  call(operation: ContractOperation, request: OutgoingRequest, expectation?: Expectation): Promise<Answer | undefined>;
}

export function callerFor(client: HttpClient, results: Results, signal: AbortSignal): RunContext['call'] {
  return async (operation, request, expectation) => {
    let exchange: Exchange;
    try {
      exchange = await client.send(request, signal);
    } catch (error) {
      if (!(error instanceof TransportError)) throw error;
      const url = client.url(request.target);
      results.record(operation.operationId, 'answered', error.message, [
        { request, url, status: 0, headers: {}, text: '', ms: 0 },
      ]);
      return undefined;
    }
    results.record(operation.operationId, 'answered', undefined);
    // The answers waited on (429, 503 with Retry-After) are checked as answers too, but expect nothing.
    for (const earlier of exchange.waitedOn ?? []) checkAnswer(results, operation, earlier);
    const body = checkAnswer(results, operation, exchange, expectation);
    return { exchange, body };
  };
}
