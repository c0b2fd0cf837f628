// The `missing-required-header` check: a request that leaves out a header the contract requires is refused, never
// served. A header parameter marked `required` gets a 400; a body sent without Content-Type gets the 415 the contract
// gives a body that is not application/json (a gateway that assumes JSON would store it). The body has a fresh id of
// the run's block, so a deployment that accepts it creates a plant the cleanup deletes.
import fc from 'fast-check';
import { checkAnswer } from './checks.js';
import { bodyIdField, bodyNameField } from './generated-phase.js';
import { type Exchange, type OutgoingRequest, TransportError } from './http-client.js';
import { plantName, slotId } from './phase-support.js';
import { sendRaw } from './raw-http.js';
import { render, validShape } from './requests.js';
import type { RunContext } from './run-context.js';

export async function runRequiredHeaderPhase(run: RunContext): Promise<void> {
  let index = 0;
  for (const operation of run.contract.operations) {
    if (run.options.readOnly && operation.method !== 'GET' && operation.method !== 'HEAD') continue;
    const [shape] = fc.sample(validShape(operation, run.range), { seed: run.options.seed, numRuns: 1 });
    const idField = operation.role === 'create' ? bodyIdField(operation) : undefined;
    const nameField = operation.role === 'create' ? bodyNameField(operation)?.name : undefined;
    const id = slotId(run, 'headers', index);
    // A create that a deployment wrongly accepts makes a plant of the run's own id and name: the cleanup finds it.
    const body = idField
      ? {
          ...(shape!.body as object),
          [idField]: id,
          ...(nameField ? { [nameField]: plantName(run, 'headers', index) } : {}),
        }
      : shape!.body;
    index++;
    const request = render({
      operation,
      kind: 'valid',
      shape: { ...shape!, body },
      credentials: { kind: 'token', principal: 'token' },
    });
    const cases: { without: string; statuses: number[]; request: OutgoingRequest }[] = [];
    for (const header of operation.parameters.filter((p) => p.in === 'header' && p.required)) {
      cases.push({
        without: header.name,
        statuses: [400],
        request: { ...request, headers: { ...request.headers, [header.name]: '' } },
      });
    }
    if (request.body !== undefined) {
      cases.push({
        without: 'Content-Type',
        statuses: [415],
        request: { ...request, headers: { ...request.headers, 'content-type': '' } },
      });
    }
    for (const { without, statuses, request: sent } of cases) {
      if (run.signal.aborted) return;
      let exchange: Exchange;
      try {
        exchange = await sendRaw(run.client, sent);
      } catch (error) {
        if (!(error instanceof TransportError)) throw error;
        run.results.record(operation.operationId, 'missing-required-header', `without ${without}: ${error.message}`, [
          { request: sent, url: run.client.url(sent.target), status: 0, headers: {}, text: '', ms: 0 },
        ]);
        continue;
      }
      if (exchange.status >= 200 && exchange.status < 300 && idField) run.ledger.add('token', id);
      checkAnswer(run.results, operation, exchange, { statuses, because: `no ${without} header` });
      run.results.record(
        operation.operationId,
        'missing-required-header',
        statuses.includes(exchange.status)
          ? undefined
          : `${sent.method} ${sent.target} without ${without} answered ${exchange.status}, not ${statuses.join(' or ')}`,
        [exchange],
      );
    }
  }
}
