// The checks every answer gets, from the contract alone: a declared status, the expected one, no 5xx, the content
// type, the schema, no undeclared field, the Error shape, and the headers the contract promises (WWW-Authenticate on
// 401, Retry-After on 429 and 503, the Link form and target on a list).
import { charsetOf, flattenAllOf, isJsonCharset, parseJsonExact } from '@plant-store/contract';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { ContractOperation, ResponseSpec, Schema } from './contract.js';
import { type Exchange, retryAfterSeconds } from './http-client.js';
import type { Results } from './report.js';
import { responseHeaderProblems } from './response-headers.js';

// ajv-formats is CommonJS with a default export; NodeNext sees the module object.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
addFormats(ajv, ['int32']);
const compiled = new Map<object, ValidateFunction>();

function validatorOf(schema: Schema): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  return validate;
}

/** Paths of fields the schema does not declare (a response holds only what the contract names). */
export function undeclaredFields(value: unknown, input: Schema, at = ''): string[] {
  const schema = flattenAllOf(input);
  if (Array.isArray(value)) {
    const items = schema.items as Schema | undefined;
    return items ? value.flatMap((item, index) => undeclaredFields(item, items, `${at}[${index}]`)) : [];
  }
  if (value === null || typeof value !== 'object') return [];
  const properties = schema.properties as Record<string, Schema> | undefined;
  if (!properties || schema.additionalProperties === true) return [];
  return Object.entries(value as Record<string, unknown>).flatMap(([key, item]) => {
    const path = at === '' ? key : `${at}.${key}`;
    const declared = properties[key];
    return declared ? undeclaredFields(item, declared, path) : [path];
  });
}

/** The response the contract declares for `status`: the code itself, else `default` for an error status. */
export function declaredResponse(operation: ContractOperation, status: number): ResponseSpec | undefined {
  const exact = operation.responses[String(status)];
  if (exact) return exact;
  // `default` describes failures; a success the operation does not list is not declared by it.
  return status >= 400 ? operation.responses.default : undefined;
}

const LINK_VALUE = /^<([^>]*)>\s*;\s*rel="?next"?\s*$/;

/** Problems with a `Link` header of a list answer: its form and where it points. */
export function linkProblems(value: string, requestUrl: string, cursorPattern: RegExp | undefined): string[] {
  const match = LINK_VALUE.exec(value.trim());
  if (!match) return [`Link is not of the form <url>; rel="next": ${JSON.stringify(value)}`];
  let target: URL;
  try {
    target = new URL(match[1]!, requestUrl);
  } catch {
    return [`Link target ${JSON.stringify(match[1])} is not a URL`];
  }
  const from = new URL(requestUrl);
  const problems: string[] = [];
  if (target.origin !== from.origin || target.pathname !== from.pathname) {
    problems.push(`Link points at ${target.origin}${target.pathname}, not at ${from.origin}${from.pathname}`);
  }
  const cursor = target.searchParams.get('cursor');
  if (cursor === null) problems.push('Link target carries no cursor');
  else if (cursorPattern && !cursorPattern.test(cursor)) {
    problems.push(`Link cursor ${JSON.stringify(cursor)} breaks the contract's pattern ${cursorPattern.source}`);
  }
  const limit = from.searchParams.get('limit');
  if (limit !== null && target.searchParams.get('limit') !== limit) {
    problems.push(`Link target has limit=${target.searchParams.get('limit')}, the request asked for ${limit}`);
  }
  return problems;
}

export interface Expectation {
  /** The statuses this request may get; omitted when any declared status will do. */
  statuses?: number[];
  /** Why those statuses (said in a failure). */
  because?: string;
}

/** Runs every answer check on `exchange`; returns the parsed body when it was JSON. */
export function checkAnswer(
  results: Results,
  operation: ContractOperation,
  exchange: Exchange,
  expectation: Expectation = {},
): unknown {
  const op = operation.operationId;
  const { status } = exchange;
  const say = (text: string) => `${exchange.request.method} ${exchange.request.target} answered ${status}: ${text}`;
  const verdict = (check: Parameters<Results['record']>[1], problem: string | undefined) =>
    results.record(op, check, problem === undefined ? undefined : say(problem), [exchange]);

  verdict(
    'no-5xx',
    status >= 500 && !(status === 503 && exchange.headers['retry-after']) ? 'a server error' : undefined,
  );
  const declared = declaredResponse(operation, status);
  verdict('declared-status', declared ? undefined : `${op} does not declare ${status}`);
  if (expectation.statuses && status < 500) {
    verdict(
      'expected-status',
      expectation.statuses.includes(status)
        ? undefined
        : `expected ${expectation.statuses.join(' or ')}${expectation.because ? ` (${expectation.because})` : ''}`,
    );
  }

  let body: unknown;
  const isHead = exchange.request.method === 'HEAD';
  if (declared && (declared.schema === undefined || isHead)) {
    verdict('content-type', exchange.text === '' ? undefined : `declares no body but got ${preview(exchange.text)}`);
  } else if (declared?.schema) {
    const type = exchange.headers['content-type'] ?? '';
    const json = /^application\/json\s*(;|$)/i.test(type);
    const charset = charsetOf(type);
    // JSON is UTF-8 (RFC 8259): a client that believes another charset reads `Café` as `CafÃ©`.
    const utf8 = isJsonCharset(charset);
    verdict(
      'content-type',
      !json
        ? `content type ${type || '(none)'}, not application/json`
        : utf8
          ? undefined
          : `content type ${type} declares charset ${charset}: JSON is UTF-8, and a client that believes it misreads every character beyond ASCII`,
    );
    if (json) {
      try {
        body = parseJsonExact(exchange.text);
      } catch {
        verdict('schema', `the body is not JSON: ${preview(exchange.text)}`);
        return undefined;
      }
      const validate = validatorOf(declared.schema);
      verdict(
        'schema',
        validate(body) ? undefined : `${preview(exchange.text)} breaks its schema: ${ajv.errorsText(validate.errors)}`,
      );
      const extra = undeclaredFields(body, declared.schema);
      verdict(
        'undeclared-field',
        extra.length === 0 ? undefined : `fields the contract does not declare: ${extra.slice(0, 5).join(', ')}`,
      );
    }
  }

  if (status >= 400 && !isHead) {
    const error = body as { error?: unknown; message?: unknown } | undefined;
    verdict(
      'error-shape',
      error &&
        typeof error === 'object' &&
        error.error === status &&
        typeof error.message === 'string' &&
        error.message !== ''
        ? undefined
        : `not an Error body {"error": ${status}, "message": "..."}: ${preview(exchange.text)}`,
    );
  }
  const promised = new Set(declared?.headers ?? []);
  if (status === 401) promised.add('www-authenticate');
  if (status === 429 || status === 503) promised.add('retry-after');
  for (const name of promised) {
    if (name === 'link') continue; // only when more pages follow: the list checks look at it
    const value = exchange.headers[name];
    if (name === 'www-authenticate') {
      verdict(name, value && /^bearer\b/i.test(value) ? undefined : `WWW-Authenticate is ${value ?? 'missing'}`);
    } else if (name === 'retry-after') {
      verdict(name, retryAfterSeconds(value) === undefined ? `Retry-After is ${value ?? 'missing'}` : undefined);
    } else if (value === undefined) {
      results.record(op, 'declared-header', say(`header ${name} is missing`), [exchange]);
    }
  }
  const headerProblems = declared && responseHeaderProblems(declared, exchange.headers);
  if (headerProblems) verdict('response-headers-conformance', headerProblems.join('; ') || undefined);
  return body;
}

/** The first 120 characters of a body, quoted. */
export function preview(text: string): string {
  return JSON.stringify(text.length > 120 ? `${text.slice(0, 120)}...` : text);
}
