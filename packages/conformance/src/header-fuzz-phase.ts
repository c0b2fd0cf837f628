// The `header-fuzzing` check: headers as bytes no client library would send (C0 controls, NUL, DEL, ESC, raw Latin-1
// and UTF-8 bytes, 64 KiB values, broken bearer tokens), written straight onto a socket. Each gets an answer within the
// timeout that is a success or a 4xx in the Error shape: never a 5xx, a hang or a dropped connection. Then a plain
// request shows the service still answers.
import { checkAnswer, preview } from './checks.js';
import { type Exchange, type OutgoingRequest, TransportError } from './http-client.js';
import { sendRaw } from './raw-http.js';
import type { RunContext } from './run-context.js';

/** `text` as the bytes of its UTF-8 encoding, one character per byte. */
const utf8Bytes = (text: string) => Buffer.from(text, 'utf8').toString('latin1');

interface FuzzCase {
  what: string;
  headers?: Record<string, string>;
  /** A credential instead of the run's token. */
  authorization?: string;
  /** The statuses it may get, when not any success or 4xx. */
  statuses?: number[];
}

const FUZZ = 'x-conformance-fuzz';

const FUZZ_CASES: FuzzCase[] = [
  { what: 'a C0 control byte in a header', headers: { [FUZZ]: 'a\u0001b' } },
  { what: 'an escape sequence in a header', headers: { [FUZZ]: '\u001b[2J' } },
  { what: 'a NUL byte in a header', headers: { [FUZZ]: 'a\u0000b' } },
  { what: 'DEL in a header', headers: { [FUZZ]: 'a\u007f' } },
  { what: 'a raw Latin-1 byte in a header', headers: { [FUZZ]: 'caf\u00e9' } },
  { what: 'UTF-8 bytes in a header', headers: { [FUZZ]: utf8Bytes('caf\u00e9 \u{1F335}') } },
  { what: 'a 64 KiB header', headers: { [FUZZ]: 'a'.repeat(64 * 1024) } },
  { what: 'a control byte in If-None-Match', headers: { 'if-none-match': 'W/"\u0001"' } },
  {
    what: 'UTF-8 bytes in the bearer token',
    authorization: utf8Bytes('Bearer caf\u00e9\u{1F335}'),
    statuses: [400, 401],
  },
  { what: 'a control byte in the bearer token', authorization: 'Bearer a\u0001b', statuses: [400, 401] },
  { what: 'a 12 KiB bearer token', authorization: `Bearer ${'a'.repeat(12 * 1024)}`, statuses: [401, 431] },
];

/** Why `exchange` is no acceptable answer to `fuzz`, or undefined. */
function problemOf(fuzz: FuzzCase, exchange: Exchange): string | undefined {
  const { status } = exchange;
  if (status >= 500) return `a server error (${status})`;
  if (fuzz.statuses && !fuzz.statuses.includes(status)) return `answered ${status}, not ${fuzz.statuses.join(' or ')}`;
  if (status < 400) return undefined;
  let error: { error?: unknown; message?: unknown } | undefined;
  try {
    error = JSON.parse(exchange.text) as typeof error;
  } catch {
    error = undefined;
  }
  return error?.error === status && typeof error.message === 'string'
    ? undefined
    : `answered ${status} without the Error body: ${preview(exchange.text)}`;
}

export async function runHeaderFuzzPhase(run: RunContext): Promise<void> {
  const list = run.contract.byRole('list');
  if (!list) return;
  const target = `${list.path}?limit=1`;
  for (const fuzz of FUZZ_CASES) {
    if (run.signal.aborted) return;
    const request: OutgoingRequest = {
      method: 'GET',
      target,
      ...(fuzz.authorization === undefined ? { principal: 'token' as const } : { authorization: fuzz.authorization }),
      ...(fuzz.headers ? { headers: fuzz.headers } : {}),
    };
    let exchange: Exchange;
    try {
      exchange = await sendRaw(run.client, request);
    } catch (error) {
      if (!(error instanceof TransportError)) throw error;
      const url = run.client.url(target);
      run.results.record(list.operationId, 'header-fuzzing', `${fuzz.what}: ${error.message}`, [
        { request, url, status: 0, headers: {}, text: '', ms: 0 },
      ]);
      continue;
    }
    checkAnswer(run.results, list, exchange);
    const problem = problemOf(fuzz, exchange);
    run.results.record(list.operationId, 'header-fuzzing', problem && `${fuzz.what}: ${problem}`, [exchange]);
  }
  const after = await run.call(list, { method: 'GET', target, principal: 'token' }, { statuses: [list.successStatus] });
  run.results.record(
    list.operationId,
    'header-fuzzing',
    after?.exchange.status === list.successStatus ? undefined : 'after the header fuzzing, a plain list got no 200',
    after ? [after.exchange] : [],
  );
}
