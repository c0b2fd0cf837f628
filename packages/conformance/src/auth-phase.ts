// The `ignored-auth` check: every secured operation, sent a valid request with no token, a made-up token, another
// scheme or a bare `Bearer`, answers 401 in the Error shape with WWW-Authenticate: Bearer. A read is first sent with
// the run's token on the same URL, so a cache that serves what it was given to whoever asks next fails here.
import fc from 'fast-check';
import { render, validShape } from './requests.js';
import type { RunContext } from './run-context.js';

const WRONG: { what: string; authorization?: string }[] = [
  { what: 'no token' },
  { what: 'a made-up bearer token', authorization: 'Bearer conformance-made-up-token' },
  { what: 'another scheme', authorization: 'Basic Y29uZm9ybWFuY2U6bm90LWEtdG9rZW4=' },
  { what: 'Bearer without a token', authorization: 'Bearer' },
];

export async function runIgnoredAuthPhase(run: RunContext): Promise<void> {
  for (const operation of run.contract.operations.filter((candidate) => candidate.secured)) {
    const safe = operation.method === 'GET' || operation.method === 'HEAD';
    if (run.options.readOnly && !safe) continue;
    const [shape] = fc.sample(validShape(operation, run.range), { seed: run.options.seed, numRuns: 1 });
    const request = render({ operation, kind: 'valid', shape: shape!, credentials: { kind: 'none' } });
    // What a client with a token was just served at this URL must not reach the next caller without one.
    if (safe) await run.call(operation, { ...request, principal: 'token' });
    for (const wrong of WRONG) {
      if (run.signal.aborted) return;
      const sent = wrong.authorization === undefined ? request : { ...request, authorization: wrong.authorization };
      const answer = await run.call(operation, sent, { statuses: [401], because: wrong.what });
      if (!answer) continue;
      const { status, headers } = answer.exchange;
      const error = answer.body as { error?: unknown } | undefined;
      const problem =
        status !== 401
          ? `answered ${status}`
          : error?.error !== 401
            ? 'answered 401 without the Error body'
            : /^bearer\b/i.test(headers['www-authenticate'] ?? '')
              ? undefined
              : `answered 401 with WWW-Authenticate ${headers['www-authenticate'] ?? 'missing'}`;
      run.results.record(
        operation.operationId,
        'ignored-auth',
        problem && `${sent.method} ${sent.target} with ${wrong.what} ${problem}, not 401`,
        [answer.exchange],
      );
    }
  }
}
