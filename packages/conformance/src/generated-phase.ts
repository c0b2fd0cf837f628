// The generated phase: the edges of every bound first, then requests drawn from the contract's schemas until the
// budget (a count or a deadline) is spent. What a valid write must answer comes from the ledger of what the run
// created: a fresh id is created, an id created already conflicts, an id never created is not found.
import { flattenAllOf, INTEGER_TEXT } from '@plant-store/contract';
import fc from 'fast-check';
import { linkProblems, preview } from './checks.js';
import { type ContractOperation, namesOnePlant } from './contract.js';
import type { Exchange, Principal } from './http-client.js';
import { edgePlans, type GenerationContext, type Plan, plans, render, type Shape, validShape } from './requests.js';
import type { RunContext } from './run-context.js';
import { idInRunName, runName } from './run-names.js';
import { RawNumber } from './schema-arbitraries.js';
import { checkUpdateApplied } from './update-applied.js';

export interface Budget {
  /** Generated requests to send (edges included). */
  requests?: number;
  /** Or: stop starting requests at this time (ms since the epoch). */
  deadline?: number;
}

const isSuccess = (status: number) => status >= 200 && status < 300;

/** An id as sent in a body or a path, as a bigint, when it reads as an integer. */
function idOf(value: unknown): bigint | undefined {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
  if (typeof value === 'string' && INTEGER_TEXT.test(value)) return BigInt(value);
  return undefined;
}

function idParameter(operation: ContractOperation): string | undefined {
  return operation.parameters.find((p) => p.in === 'path' && p.schema.format === 'int64')?.name;
}

/** The body field that holds the new resource's int64 id. */
export function bodyIdField(operation: ContractOperation): string | undefined {
  const properties = (flattenAllOf(operation.body).properties ?? {}) as Record<string, Record<string, unknown>>;
  return Object.keys(properties).find((name) => properties[name]?.format === 'int64');
}

/** Statuses that refuse a request as invalid: a valid one must never get them. */
const REFUSED_AS_INVALID = [400, 413, 415, 422];

/** `negative-data-rejection` for a plan that breaks a rule, `positive-data-acceptance` for one that keeps them all. */
function recordDataVerdict(run: RunContext, plan: Plan, exchange: Exchange): void {
  const { status, request } = exchange;
  const sent = `${request.method} ${request.target}`;
  if (plan.kind === 'invalid' || plan.kind === 'malformed-body') {
    run.results.record(
      plan.operation.operationId,
      'negative-data-rejection',
      status >= 400 && status < 500
        ? undefined
        : `${sent} breaks ${plan.breaks} but answered ${status}: it was not refused`,
      [exchange],
    );
  } else if (plan.kind === 'valid') {
    run.results.record(
      plan.operation.operationId,
      'positive-data-acceptance',
      REFUSED_AS_INVALID.includes(status)
        ? `${sent} keeps every rule of the contract but was refused with ${status}: ${preview(exchange.text)}`
        : undefined,
      [exchange],
    );
  }
}

/** The body field that names the new resource: its first required string field (the run's names go there). */
export function bodyNameField(
  operation: ContractOperation,
): { name: string; maxLength: number | undefined } | undefined {
  const schema = flattenAllOf(operation.body);
  const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  const required = (schema.required ?? []) as string[];
  const name = required.find((field) => properties[field]?.type === 'string' && !properties[field]?.format);
  if (name === undefined) return undefined;
  const maxLength = properties[name]?.maxLength;
  return { name, maxLength: typeof maxLength === 'number' ? maxLength : undefined };
}

/** Whether an invalid plan's one broken rule is its body's id, sent in a wrong form (`<id>.5`, or as text). Told by the
 * value, not by the plan's label of the rule (`body id: type`), which a `true` or `null` id gets too. */
function isWrongIdForm(plan: Plan): boolean {
  const value = (plan.shape.body as Record<string, unknown> | undefined)?.[bodyIdField(plan.operation) ?? 'id'];
  return plan.kind === 'invalid' && (value instanceof RawNumber || typeof value === 'string');
}

/**
 * The plan with its create's name made one of the run's (prefix and id first), so cleanup can find what it stored: a
 * valid create, and one whose one broken rule is its id's form, named for that id, since a deployment that rounds
 * numbers to doubles stores `<id>.5` as an integer beside it; likewise a valid update, named for the id in its path.
 * Any other plan as it is.
 */
export function namedForRun(namePrefix: string, plan: Plan): Plan {
  const { role } = plan.operation;
  const body = plan.shape.body as Record<string, unknown> | undefined;
  let id: bigint | undefined;
  if (role === 'create' && (plan.kind === 'valid' || isWrongIdForm(plan))) {
    const value = body?.[bodyIdField(plan.operation) ?? 'id'];
    id = idOf(value) ?? idOf(value instanceof RawNumber ? /^(-?\d+)\.5$/.exec(value.text)?.[1] : undefined);
  } else if (role === 'update' && plan.kind === 'valid') {
    // An update renames the plant it names: it keeps a run name, for the cleanup and `writes-durable` to find it.
    const idName = idParameter(plan.operation);
    id = idName === undefined ? undefined : idOf(plan.shape.path[idName]);
  }
  const field = bodyNameField(plan.operation);
  if (!body || !field || id === undefined || typeof body[field.name] !== 'string') return plan;
  const name = runName(namePrefix, id, body[field.name] as string, field.maxLength);
  // An update whose body carries the id too carries the path's: another would be a different request.
  const idField = role === 'update' ? bodyIdField(plan.operation) : undefined;
  const renamed = { ...body, [field.name]: name, ...(idField === undefined ? {} : { [idField]: id }) };
  return { ...plan, shape: { ...plan.shape, body: renamed } };
}

/** Sends one plan and checks it against the model; updates the ledger with what it created or deleted. */
export async function executePlan(run: RunContext, input: Plan): Promise<void> {
  const { operation } = input;
  let plan = input;
  const principal: Principal | undefined = plan.credentials.kind === 'token' ? plan.credentials.principal : undefined;
  const idName = idParameter(operation);
  if (plan.kind === 'created-id' && principal && idName) {
    const owned = run.ledger.ids(principal);
    const pick = owned[Number(BigInt.asUintN(32, idOf(plan.shape.path[idName]) ?? 0n)) % Math.max(1, owned.length)];
    plan = {
      ...plan,
      kind: 'valid',
      shape: { ...plan.shape, path: { ...plan.shape.path, [idName]: pick ?? plan.shape.path[idName] } },
    };
  }
  plan = namedForRun(run.namePrefix, plan);
  const id =
    operation.role === 'create'
      ? idOf((plan.shape.body as Record<string, unknown> | undefined)?.[bodyIdField(operation) ?? 'id'])
      : idName
        ? idOf(plan.shape.path[idName])
        : undefined;
  const owned = principal !== undefined && id !== undefined && run.ledger.has(principal, id);
  const success = operation.successStatus;
  let statuses: number[];
  let because: string;
  switch (plan.kind) {
    case 'valid':
    case 'head':
      if (operation.role === 'create' && owned) [statuses, because] = [[409], 'this principal created the id already'];
      else if (namesOnePlant(operation.role) && !owned)
        [statuses, because] = [[404], 'this principal never created the id, or deleted it'];
      else [statuses, because] = [[success], 'every value is valid'];
      break;
    case 'invalid':
      [statuses, because] = [[400], `invalid: ${plan.breaks}`];
      break;
    case 'malformed-body':
      [statuses, because] = [[400], 'the body is not JSON'];
      break;
    case 'forged-opaque':
      [statuses, because] = [[success, 400], 'a cursor the service never issued may be refused'];
      break;
    case 'unknown-parameter':
      // Refused since 1.3.0 (the contract's strict query parameters); ignoring one would serve the wrong list.
      [statuses, because] = [[400], 'a query parameter the contract does not declare is refused'];
      break;
    case 'media-type':
      [statuses, because] = [[415], `the body is ${plan.shape.contentType}`];
      break;
    case 'oversized':
      [statuses, because] = [[413], 'the body is larger than the contract allows'];
      break;
    case 'unauthenticated':
      [statuses, because] = [[401], 'no valid token'];
      break;
    case 'insufficient-scope':
      [statuses, because] = [[403], `the token lacks the ${operation.scope} scope`];
      break;
    default:
      [statuses, because] = [[success], plan.kind];
  }
  const request = render(plan);
  const answer = await run.call(operation, request, { statuses, because });
  if (!answer) return;
  const { exchange, body } = answer;
  recordDataVerdict(run, plan, exchange);
  const runNamed =
    idInRunName(
      run.namePrefix,
      (plan.shape.body as Record<string, unknown> | undefined)?.[bodyNameField(operation)?.name ?? ''],
    ) !== undefined;
  if (isSuccess(exchange.status) && id !== undefined && principal !== undefined) {
    if (operation.role === 'create' && run.range.has(id)) run.ledger.add(principal, id, runNamed);
    // A stored update whose name is not one of the run's (a refused one) leaves the plant for the cleanup by its id.
    if (operation.role === 'update' && run.ledger.has(principal, id)) run.ledger.add(principal, id, runNamed);
    if (operation.role === 'delete') run.ledger.remove(principal, id);
    if (operation.role === 'update' && plan.kind === 'valid') {
      const sent = plan.shape.body as Record<string, unknown>;
      await checkUpdateApplied(run, operation, principal, id, sent, bodyNameField(operation)?.name);
    }
  }
  // A stored create the ledger cannot hold is left to the cleanup where it carries the run's name, else to a person.
  if (
    operation.role === 'create' &&
    isSuccess(exchange.status) &&
    (id === undefined || !run.range.has(id)) &&
    !runNamed
  ) {
    run.results.skip(
      operation.operationId,
      'cleanup',
      `a refused create was stored (${request.body?.slice(0, 60)}): delete it by hand`,
    );
  }
  if (operation.role === 'list' && exchange.status === 200 && plan.kind !== 'head') {
    const link = exchange.headers.link;
    const cursor = operation.parameters.find((p) => p.name === 'cursor');
    if (link !== undefined) {
      const problems = linkProblems(
        link,
        exchange.url,
        cursor?.schema.pattern ? new RegExp(String(cursor.schema.pattern), 'u') : undefined,
      );
      run.results.record(operation.operationId, 'link', problems.length ? problems.join('; ') : undefined, [exchange]);
    }
    const limit = Number(
      plan.shape.query.limit ?? operation.parameters.find((p) => p.name === 'limit')?.schema.default,
    );
    if (Array.isArray(body) && Number.isInteger(limit)) {
      run.results.record(
        operation.operationId,
        'model-listing',
        body.length > limit ? `a page of ${body.length} plants for limit=${limit}` : undefined,
        [exchange],
      );
    }
  }
  if (plan.kind === 'head') {
    const get = await run.call(operation, { ...request, method: 'GET' }, { statuses });
    if (get) {
      const problems: string[] = [];
      if (get.exchange.status !== exchange.status)
        problems.push(`HEAD answered ${exchange.status}, GET ${get.exchange.status}`);
      if ((get.exchange.headers.link === undefined) !== (exchange.headers.link === undefined)) {
        problems.push('HEAD and GET differ in Link');
      }
      if (exchange.text !== '') problems.push('HEAD answered with a body');
      run.results.record(operation.operationId, 'head', problems.length ? problems.join('; ') : undefined, [
        exchange,
        get.exchange,
      ]);
    }
  }
}

/** The generation context of a run. */
export function generationContext(run: RunContext): GenerationContext {
  const create = run.contract.byRole('create');
  const limitText = /(\d+) bytes/.exec(create?.responses['413']?.description ?? '');
  const writers: Principal[] = run.options.readOnly ? [] : ['token'];
  if (!run.options.readOnly && run.options.secondToken) writers.push('second-token');
  return {
    range: run.range,
    writers,
    readToken: run.options.readToken !== undefined,
    readOnly: run.options.readOnly,
    bodyLimit: limitText ? Number(limitText[1]) : undefined,
  };
}

/** The generated phase: edges, then random plans, until the budget is spent or the run is interrupted. */
export async function runGeneratedPhase(run: RunContext, budget: Budget): Promise<number> {
  const context = generationContext(run);
  const usable = run.contract.operations.filter(
    (operation) => !(context.readOnly && operation.method !== 'GET' && operation.method !== 'HEAD'),
  );
  let sent = 0;
  const more = () =>
    !run.signal.aborted &&
    (budget.requests === undefined || sent < budget.requests) &&
    (budget.deadline === undefined || Date.now() < budget.deadline);
  let seed = run.options.seed;
  const edges: Plan[] = [];
  for (const operation of usable) {
    const shapes = fc.sample(validShape(operation, run.range), { seed: seed++, numRuns: 64 }) as Shape[];
    let index = 0;
    edges.push(...edgePlans(operation, () => shapes[index++ % shapes.length]!));
  }
  for (const plan of edges) {
    if (!more()) return sent;
    await executePlan(run, plan);
    sent++;
  }
  const arbitrary = plans(usable, context);
  for (let chunk = 0; more(); chunk++) {
    for (const plan of fc.sample(arbitrary, { seed: seed + chunk, numRuns: 100 })) {
      if (!more()) return sent;
      await executePlan(run, plan);
      sent++;
    }
  }
  return sent;
}
