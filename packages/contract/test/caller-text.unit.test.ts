// Text a caller chose, as error messages echo it: whole up to 64 characters, else cut with a marker, in every message
// and `details` entry that repeats it (the server and the testing kit word their refusals with these same functions).
import { describe, expect, it } from 'vitest';
import { CALLER_TEXT_MAX, callerText } from '../src/caller-text.js';
import { methodNotAllowedMessage, noRouteMessage } from '../src/edge-refusals.js';
import { describeBrokenRule, detailOfBrokenRule } from '../src/request-rules.js';

const long = `a${'b'.repeat(15 * 1024)}`;
const cut = `a${'b'.repeat(CALLER_TEXT_MAX - 1)}...[cut: ${long.length} characters]`;

describe('callerText', () => {
  it('keeps text of up to 64 characters whole', () => {
    expect(callerText('')).toBe('');
    expect(callerText('x'.repeat(64))).toBe('x'.repeat(64));
    // 64 characters in 128 UTF-16 units.
    expect(callerText('🌿'.repeat(64))).toBe('🌿'.repeat(64));
  });

  it('cuts longer text to its first 64 characters and says how long it was', () => {
    expect(callerText(long)).toBe(cut);
    expect(callerText('🌿'.repeat(100))).toBe(`${'🌿'.repeat(64)}...[cut: 100 characters]`);
  });
});

describe('messages that echo caller text', () => {
  it('cut an unknown body field in the message and in its detail', () => {
    const broken = { location: 'body', pointer: '', rule: 'unknownField', field: long };
    expect(describeBrokenRule(broken)).toBe(
      `body has an unknown field "${cut}"; only the fields the contract declares are accepted`,
    );
    expect(detailOfBrokenRule(broken)).toEqual({ location: 'body', field: cut, rule: 'unknownField' });
  });

  it('cut an unknown query parameter', () => {
    const broken = { location: 'query', pointer: '', rule: 'unknownField', field: long, accepted: ['limit'] };
    expect(describeBrokenRule(broken)).toBe(`unknown query parameter "${cut}"; this operation accepts only limit`);
    expect(detailOfBrokenRule(broken).field).toBe(cut);
  });

  it('cut the path of a 404 and a 405', () => {
    const path = `/${'p'.repeat(200)}`;
    const shown = `/${'p'.repeat(63)}...[cut: 201 characters]`;
    expect(noRouteMessage('GET', path)).toBe(`no route GET ${shown}; see /openapi.json for the API`);
    expect(methodNotAllowedMessage('PUT', path, ['DELETE'])).toBe(`PUT is not allowed on ${shown}; use DELETE`);
  });
});
