// The `unsupported-method` check: each method a path does not declare (of GET, POST, PUT, PATCH, DELETE), sent with the
// run's token, is answered 405 in the Error shape (the contract's `default` answer names it) with an Allow header that
// lists the methods the path declares and not the one refused. HEAD is left out (it is served wherever GET is).
import fc from 'fast-check';
import type { ContractOperation } from './contract.js';
import { render, validShape } from './requests.js';
import type { RunContext } from './run-context.js';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** Problems with the Allow header of a 405 for `method` on a path that declares `declared`. */
function allowProblems(allow: string | undefined, method: string, declared: string[]): string | undefined {
  if (allow === undefined) return 'the 405 carries no Allow header';
  const allowed = allow.split(',').map((item) => item.trim().toUpperCase());
  const missing = declared.filter((item) => !allowed.includes(item));
  if (missing.length > 0) return `Allow: ${allow} leaves out ${missing.join(', ')}`;
  return allowed.includes(method) ? `Allow: ${allow} lists ${method}, which was just refused` : undefined;
}

export async function runUnsupportedMethodPhase(run: RunContext): Promise<void> {
  const byPath = new Map<string, ContractOperation[]>();
  for (const operation of run.contract.operations)
    byPath.set(operation.path, [...(byPath.get(operation.path) ?? []), operation]);
  for (const [path, operations] of byPath) {
    const declared = operations.map((operation) => operation.method);
    const first = operations[0]!;
    const [shape] = fc.sample(validShape(first, run.range), { seed: run.options.seed, numRuns: 1 });
    const { target } = render({
      operation: first,
      kind: 'valid',
      shape: { ...shape!, query: {} },
      credentials: { kind: 'none' },
    });
    for (const method of METHODS.filter((candidate) => !declared.includes(candidate))) {
      // --read-only sends nothing but GET and HEAD, even where the contract declares no such method.
      if (run.signal.aborted || (run.options.readOnly && method !== 'GET')) continue;
      // No operation declares it: the contract's `default` answer (the Error body) is what it may get.
      const undeclared: ContractOperation = {
        ...first,
        operationId: `(${method} ${path})`,
        method,
        parameters: [],
        body: undefined,
        bodyRequired: false,
        responses: first.responses.default ? { default: first.responses.default } : {},
        role: 'other',
      };
      const answer = await run.call(
        undeclared,
        { method, target, principal: 'token' },
        {
          statuses: [405],
          because: `${path} declares only ${declared.join(', ')}`,
        },
      );
      if (!answer) continue;
      const { status, headers } = answer.exchange;
      run.results.record(
        undeclared.operationId,
        'unsupported-method',
        status === 405
          ? allowProblems(headers.allow, method, declared)
          : `${method} ${target}, a method ${path} does not declare, answered ${status}, not 405`,
        [answer.exchange],
      );
    }
  }
}
