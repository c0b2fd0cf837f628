// The parts of `plant-store conformance` that need no service: its arguments, the Link check, Retry-After, the
// reserved ids, curl reproductions (tokens never printed, control characters legible) and the JUnit XML.
import { describe, expect, it } from 'vitest';
import { DEFAULT_REQUESTS, parseConformanceArguments } from '../src/arguments.js';
import { linkProblems, undeclaredFields } from '../src/checks.js';
import { curlOf, shellQuote } from '../src/curl.js';
import { retryAfterSeconds } from '../src/http-client.js';
import { junitXml } from '../src/junit.js';
import { CHECKS, Results } from '../src/report.js';
import { RESERVED_SIZE, reservedRange } from '../src/reserved-ids.js';

describe('conformance arguments', () => {
  it('takes tokens from the environment, defaults the budget, and refuses what CI would regret', () => {
    const options = parseConformanceArguments(['--base-url', 'https://plants.example.com/'], {
      PLANT_STORE_TOKEN: 'pst_a',
      PLANT_STORE_SECOND_TOKEN: 'pst_b',
    });
    expect(options).toMatchObject({
      token: 'pst_a',
      secondToken: 'pst_b',
      requests: DEFAULT_REQUESTS,
      readOnly: false,
    });
    expect(() =>
      parseConformanceArguments(['--base-url', 'http://x', '--token', 'a', '--second-token', 'a'], {}),
    ).toThrow("another principal's token");
    expect(() => parseConformanceArguments(['--base-url', 'http://x', '--token', 'a b'], {})).toThrow('spaces');
    expect(() => parseConformanceArguments(['--base-url', 'http://x', '--token', 'a', '--seed', '1.5'], {})).toThrow(
      '--seed must be a whole number',
    );
    expect(() => parseConformanceArguments(['--base-url', 'http://x', '--token', 'a', '--token', 'b'], {})).toThrow(
      'more than once',
    );
  });
});

describe('the Link check', () => {
  const request = 'http://127.0.0.1:3000/plants?limit=5';
  it('accepts the contract form and a target on the same list', () => {
    expect(linkProblems('</plants?limit=5&cursor=djE6MTA>; rel="next"', request, /^[A-Za-z0-9_-]+$/)).toEqual([]);
  });
  it('names what is wrong with a link', () => {
    expect(linkProblems('/plants?cursor=x', request, undefined)[0]).toContain('not of the form');
    expect(linkProblems('<http://elsewhere/plants?limit=5&cursor=x>; rel="next"', request, undefined)[0]).toContain(
      'points at http://elsewhere/plants',
    );
    expect(linkProblems('</plants?limit=7&cursor=a>; rel="next"', request, undefined)).toEqual([
      'Link target has limit=7, the request asked for 5',
    ]);
    expect(linkProblems('</plants?limit=5&cursor=a+b>; rel="next"', request, /^[A-Za-z0-9_-]+$/)[0]).toContain(
      'pattern',
    );
  });
});

it('reads Retry-After as seconds or as an HTTP date', () => {
  expect(retryAfterSeconds('3')).toBe(3);
  expect(retryAfterSeconds(new Date(10_000).toUTCString(), 0)).toBe(10);
  expect(retryAfterSeconds('soon')).toBeUndefined();
  expect(retryAfterSeconds(undefined)).toBeUndefined();
});

it('finds fields a response schema does not declare, through arrays and allOf', () => {
  const plant = { type: 'object', properties: { name: { type: 'string' }, tag: { type: 'string' } } };
  expect(undeclaredFields([{ name: 'a', owner: 'x' }, { name: 'b' }], { type: 'array', items: plant })).toEqual([
    '[0].owner',
  ]);
  expect(undeclaredFields({ name: 'a', id: 1 }, { allOf: [plant, { properties: { id: {} } }] })).toEqual([]);
});

it('reserves a block of ids beyond 2^60 from the seed, the same for the same seed', () => {
  const range = reservedRange(123);
  expect(range.last - range.first + 1n).toBe(RESERVED_SIZE);
  expect(range.first >= 2n ** 60n || range.last <= -(2n ** 60n)).toBe(true);
  expect(reservedRange(123).first).toBe(range.first);
  expect(reservedRange(124).first).not.toBe(range.first);
});

describe('curl reproductions', () => {
  it('name the token variable instead of printing a token, and show control characters legibly', () => {
    const curl = curlOf(
      {
        method: 'POST',
        target: '/plants',
        principal: 'second-token',
        headers: { 'content-type': 'application/json' },
        body: '{"id":1,"name":"a\u0085b\'c"}',
      },
      'http://127.0.0.1:3000/plants',
    );
    expect(curl).toBe(
      `curl -g -i --path-as-is -X POST http://127.0.0.1:3000/plants -H "Authorization: Bearer \${PLANT_STORE_SECOND_TOKEN}" -H 'content-type: application/json' --data-binary $'{"id":1,"name":"a\\u0085b\\'c"}'`,
    );
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
  });
  it('write an oversized body with the shell rather than pasting it', () => {
    const curl = curlOf(
      { method: 'POST', target: '/plants', body: `{"id":1,"padding":"${'x'.repeat(20_000)}"}` },
      'http://h/plants',
    );
    expect(curl.length).toBeLessThan(300);
    expect(curl).toContain('head -c 20000 /dev/zero');
  });
});

it('writes JUnit XML that holds any text the service sent, control characters included', () => {
  const results = new Results();
  results.record('getPlants', 'schema', undefined);
  results.record('getPlants', 'no-5xx', 'answered 500: "\u0000<&>"', [
    {
      request: { method: 'GET', target: '/plants', principal: 'token' },
      url: 'http://h/plants',
      status: 500,
      headers: {},
      text: '',
      ms: 1,
    },
  ]);
  const xml = junitXml(results, { seed: 7, seconds: 1.5 });
  expect(xml).toContain('<testsuites name="plant-store conformance" tests="2" failures="1" time="1.500">');
  expect(xml).toContain('<testcase classname="getPlants" name="schema"/>');
  expect(xml).toContain('answered 500: &quot;\\u0000&lt;&amp;&gt;&quot;');
  expect(xml).toContain(`The promise it broke: ${CHECKS['no-5xx']}.`);
  expect(xml).toContain('Bearer $' + '{PLANT_STORE_TOKEN}');
  // biome-ignore lint/suspicious/noControlCharactersInRegex: XML 1.0 cannot hold these; the file must not either.
  expect(xml).not.toMatch(/[\u0000-\u0008]/);
});
