// Unknown query parameters are refused with 400, as unknown body fields are: by the contract's own rule
// (checkQueryNames, which the testing kit runs too), on every operation, after the token is checked and before any
// body is read. A query credential (`access_token`) never gets here: authentication refuses it first, in its words.
// A target holding a fragment ("#") is refused here too, before its query is read: its path and query would be
// whatever the parser made of it.
import { ApiError, checkQueryNames, FRAGMENT_IN_TARGET_MESSAGE, type OperationFacts } from '@plant-store/contract';
import type { onRequestHookHandler } from 'fastify';

/** Every name of a parsed query, once per time it was given (Fastify's parser makes a repeated name an array). */
function namesOf(query: Readonly<Record<string, unknown>>): string[] {
  const names = Object.keys(query);
  if (!names.some((name) => Array.isArray(query[name]))) return names;
  return names.flatMap((name) => {
    const value = query[name];
    return Array.isArray(value) ? value.map(() => name) : [name];
  });
}

/** The onRequest hook that refuses query parameters `operation` does not declare, and declared ones given twice. */
export function queryNamesHook(operation: OperationFacts): onRequestHookHandler {
  return function queryNames(request, _reply, done) {
    if (request.url.includes('#')) return done(new ApiError(400, FRAGMENT_IN_TARGET_MESSAGE));
    // Most requests have no query at all: nothing to parse or check.
    if (!request.url.includes('?')) return done();
    const query = request.query as Readonly<Record<string, unknown>> | undefined;
    const problem = query ? checkQueryNames(operation, namesOf(query)) : undefined;
    done(problem ? new ApiError(400, problem.message, {}, [problem.detail]) : undefined);
  };
}
