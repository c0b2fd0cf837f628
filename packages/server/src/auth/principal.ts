// Who is calling: the principal a bearer token acts for and what it may do (the handlers' type, from
// @plant-store/core), and what may name one (tokens, JWTs and webhook subscriptions all name principals by subject).
export type { Principal } from '@plant-store/core';

/** Throws a TypeError unless `subject` can name a token's principal: 1 to 200 characters, none of them controls. */
export function assertValidSubject(subject: string): void {
  // Controls (C0, DEL, C1) would let a subject forge lines in logs and in `token list`; leading or trailing space
  // would make two principals (" alice" and "alice") that look identical there.
  if (subject.length < 1 || subject.length > 200 || /\p{Cc}/u.test(subject)) {
    throw new TypeError('the subject must be 1 to 200 characters with no control characters');
  }
  if (subject.trim() !== subject) throw new TypeError('the subject must not start or end with white space');
}
