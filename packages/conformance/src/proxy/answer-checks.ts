// The checks every answer gets on its way back: the checker's own answer checks (checks.ts: declared status, no 5xx,
// content type, schema, undeclared fields, the Error shape, the promised headers), run on what the upstream sent.
// An answer to a path or method the contract does not have is held to the contract's `default` answer: an Error.
import { checkAnswer } from '../checks.js';
import type { ConformanceContract, ContractOperation } from '../contract.js';
import type { Exchange } from '../http-client.js';
import { Results } from '../report.js';

export interface AnswerProblem {
  rule: string;
  problem: string;
}

/** What is wrong with `exchange` as an answer of `operation`; empty when it keeps every rule. */
export function answerProblems(operation: ContractOperation, exchange: Exchange): AnswerProblem[] {
  const results = new Results();
  checkAnswer(results, operation, exchange);
  return results.failures.map((failure) => ({ rule: failure.check, problem: failure.message }));
}

/** The operation an answer to an undeclared path or method is checked as: only the contract's `default` answer. */
export function undeclaredOperation(contract: ConformanceContract, method: string, path: string): ContractOperation {
  const fallback = contract.operations.find((operation) => operation.responses.default)?.responses.default;
  return {
    operationId: '(undeclared)',
    method,
    path,
    parameters: [],
    body: undefined,
    bodyRequired: false,
    responses: fallback ? { default: fallback } : {},
    scope: undefined,
    secured: false,
    role: 'other',
    successStatus: 0,
  };
}
