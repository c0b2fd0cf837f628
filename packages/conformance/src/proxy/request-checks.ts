// The checks every request gets on its way through the proxy, from the contract's generated facts and the request
// rules every side shares (@plant-store/contract): the query's names, the parameters, the bearer token a secured
// operation needs, the header parameters, and the body (its type, size, UTF-8, exact JSON and fields).
import type { IncomingHttpHeaders } from 'node:http';
import type { ValueFacts } from '@plant-store/contract';
import {
  BODY_LIMIT_BYTES,
  checkBody,
  checkParameters,
  checkQueryNames,
  checkValue,
  parseJsonExact,
} from '@plant-store/contract';
import { preview } from '../checks.js';
import type { CappedBody } from './capped-body.js';
import type { Route } from './routes.js';

export interface RequestProblem {
  rule: 'parameters' | 'authorization' | 'header' | 'content-type' | 'body-size' | 'body';
  problem: string;
}

export interface IncomingCall {
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: CappedBody;
}

function bodyProblems(route: Route, call: IncomingCall): RequestProblem[] {
  const { facts } = route;
  const { body } = call;
  if (facts.body === null) {
    return body.bytes === 0
      ? []
      : [{ rule: 'body', problem: `${facts.operationId} takes no body, got ${body.bytes} bytes` }];
  }
  if (body.bytes === 0) {
    return facts.body.required
      ? [{ rule: 'body', problem: `${facts.operationId} requires a JSON body, got none` }]
      : [];
  }
  const problems: RequestProblem[] = [];
  const type = call.headers['content-type'] ?? '';
  if (!/^application\/json\s*(;|$)/i.test(type)) {
    problems.push({
      rule: 'content-type',
      problem: `the body is sent as ${type || '(no content type)'}, not application/json`,
    });
  }
  if (body.bytes > BODY_LIMIT_BYTES) {
    problems.push({
      rule: 'body-size',
      problem: `the body has ${body.bytes} bytes; the contract's limit is ${BODY_LIMIT_BYTES}`,
    });
    return problems;
  }
  // Over the budget all copies share: the proxy counts the body unchecked instead of holding more.
  if (body.dropped === 'budget') return problems;
  const text = body.text();
  if (text === undefined) return [...problems, { rule: 'body', problem: 'the body is not UTF-8' }];
  let parsed: unknown;
  try {
    parsed = parseJsonExact(text);
  } catch (error) {
    return [...problems, { rule: 'body', problem: `${(error as Error).message}: ${preview(text)}` }];
  }
  const checked = checkBody(facts, parsed);
  if ('message' in checked) problems.push({ rule: 'body', problem: `${checked.message}: ${preview(text)}` });
  return problems;
}

/** What is wrong with a request routed to `route`; empty when it keeps every rule. */
export function requestProblems(route: Route, call: IncomingCall): RequestProblem[] {
  const { facts, operation } = route;
  const problems: RequestProblem[] = [];
  const names = checkQueryNames(facts, call.query.keys());
  const parameters = names ?? checkParameters(facts, route.path, call.query);
  if ('message' in parameters) problems.push({ rule: 'parameters', problem: parameters.message });
  if (operation.secured && !/^bearer [!-~]+$/i.test(call.headers.authorization ?? '')) {
    problems.push({
      rule: 'authorization',
      problem: `${facts.operationId} needs Authorization: Bearer <token>, got ${call.headers.authorization === undefined ? 'none' : 'another form'}`,
    });
  }
  for (const parameter of operation.parameters.filter((p) => p.in === 'header')) {
    const value = call.headers[parameter.name.toLowerCase()];
    if (value === undefined) {
      if (parameter.required) problems.push({ rule: 'header', problem: `header ${parameter.name} is required` });
      continue;
    }
    const facts = { ...(parameter.schema as unknown as ValueFacts), name: parameter.name };
    const checked = checkValue('header', facts, Array.isArray(value) ? value.join(', ') : value, true);
    if ('message' in checked) problems.push({ rule: 'header', problem: checked.message });
  }
  return [...problems, ...bodyProblems(route, call)];
}
