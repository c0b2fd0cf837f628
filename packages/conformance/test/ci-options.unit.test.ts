// What a CI job sets and reads without a service: --checks and --exclude-checks (unknown names are usage errors with
// a suggestion), the verdicts of checks not judged left out, --help naming every check, the JSON report, and the run
// names cleanup finds plants by.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { conformanceUsage, parseConformanceArguments } from '../src/arguments.js';
import { curlOf } from '../src/curl.js';
import { jsonReport } from '../src/json-report.js';
import { CHECKS, type CheckName, Results } from '../src/report.js';
import { reservedRange } from '../src/reserved-ids.js';
import { idInRunName, idInRunNameOfSeed, runName, runNamePrefix } from '../src/run-names.js';

const base = ['--base-url', 'http://127.0.0.1:3000', '--token', 'pst_a'];
const parse = (...args: string[]) => parseConformanceArguments([...base, ...args], {});
const options = (...args: string[]) => {
  const parsed = parse(...args);
  if (parsed === 'help') throw new Error('help');
  return parsed;
};

describe('--checks and --exclude-checks', () => {
  it('judge every check unless narrowed, the named ones with --checks, all but the named with --exclude-checks', () => {
    expect([...options().checks]).toEqual(Object.keys(CHECKS));
    expect([...options('--checks', 'schema, link').checks]).toEqual(['schema', 'link']);
    const excluded = options('--exclude-checks', 'served-contract,cleanup').checks;
    expect(excluded.has('served-contract')).toBe(false);
    expect(excluded.has('cleanup')).toBe(false);
    expect(excluded.size).toBe(Object.keys(CHECKS).length - 2);
    expect([...options('--checks', 'schema,link', '--exclude-checks', 'link').checks]).toEqual(['schema']);
  });

  it('refuse an unknown name, suggesting the nearest, or listing them all when none is near', () => {
    expect(() => parse('--checks', 'schema,principal-isolaton')).toThrow(
      '--checks: there is no check "principal-isolaton"; did you mean principal-isolation?',
    );
    expect(() => parse('--exclude-checks', 'zzz')).toThrow(
      `--exclude-checks: there is no check "zzz" (the checks: ${Object.keys(CHECKS).join(', ')})`,
    );
    expect(() => parse('--checks', 'schema', '--exclude-checks', 'schema')).toThrow('leave no check to judge');
  });

  it('leave the verdicts of checks not judged out of the results', () => {
    const results = new Results(new Set<CheckName>(['schema']));
    results.record('getPlants', 'schema', 'wrong');
    results.record('getPlants', 'link', 'wrong too');
    results.skip('getPlants', 'served-contract', 'not served');
    expect(results.rows()).toEqual([{ operationId: 'getPlants', check: 'schema', passed: 0, failed: 1 }]);
    expect(results.skipped).toEqual([]);
  });
});

it('--help names every check with what it promises, under the name the command was typed as', () => {
  const usage = conformanceUsage('plant-store-conformance');
  expect(usage).toMatch(/^Usage: plant-store-conformance --base-url URL/);
  for (const name of Object.keys(CHECKS)) expect(usage).toMatch(new RegExp(`^  ${name} +\\S`, 'm'));
  expect(usage).toContain('--report-json FILE');
  expect(Math.max(...usage.split('\n').map((line) => line.length))).toBeLessThanOrEqual(120);
});

it('writes one JSON report: outcome, tallies, failures with their promise and curl, replay, cleanup', () => {
  const results = new Results();
  const request = { method: 'GET', target: '/plants?limit=1', principal: 'token' as const };
  results.record('getPlants', 'schema', undefined);
  results.record('getPlants', 'link', 'Link is missing', [
    { request, url: 'http://127.0.0.1:3000/plants?limit=1', status: 200, headers: {}, text: '[]', ms: 1 },
  ]);
  const report = jsonReport(results, {
    outcome: 'failed',
    options: options('--seed', '7'),
    contract: '1.3.0',
    seconds: 1.23456,
    replay: 'plant-store-conformance --base-url http://127.0.0.1:3000/ --seed 7 --requests 400',
    cleanup: { deleted: 2, left: [{ principal: 'token', id: 9223372036854775807n }] },
    leftovers: { found: 3, deleted: 2, kept: [{ principal: 'second-token', id: -9223372036854775808n }] },
    fatal: undefined,
  });
  expect(JSON.parse(JSON.stringify(report))).toMatchObject({
    tool: 'plant-store-conformance',
    outcome: 'failed',
    baseUrl: 'http://127.0.0.1:3000/',
    contract: '1.3.0',
    seed: 7,
    seconds: 1.235,
    replay: 'plant-store-conformance --base-url http://127.0.0.1:3000/ --seed 7 --requests 400',
    checks: [
      { operationId: 'getPlants', check: 'schema', passed: 1, failed: 0 },
      { operationId: 'getPlants', check: 'link', passed: 0, failed: 1 },
    ],
    failures: [
      {
        operationId: 'getPlants',
        check: 'link',
        promise: CHECKS.link,
        message: 'Link is missing',
        curl: [curlOf(request, 'http://127.0.0.1:3000/plants?limit=1')],
      },
    ],
    skipped: [],
    cleanup: { deleted: 2, left: [{ principal: 'token', id: '9223372036854775807' }] },
    leftovers: { found: 3, deleted: 2, kept: [{ principal: 'second-token', id: '-9223372036854775808' }] },
    fatal: null,
  });
});

describe('run names', () => {
  it('start with a prefix of their own run, carry the id as sent, and keep within the length', () => {
    const prefix = runNamePrefix(42);
    expect(prefix).toMatch(/^cf16[0-9a-f]{8}-$/);
    expect(runNamePrefix(42)).not.toBe(prefix);
    const name = runName(prefix, -9223372036854775808n, '\u{1F335}'.repeat(300), 200);
    expect([...name]).toHaveLength(200);
    expect(idInRunName(prefix, name)).toBe(-9223372036854775808n);
    expect(idInRunName(prefix, runName(prefix, 5n, 'a-0'))).toBe(5n);
    expect(idInRunName(runNamePrefix(42), name)).toBeUndefined();
    expect(idInRunName(prefix, `${prefix}x`)).toBeUndefined();
    expect(idInRunName(prefix, 17)).toBeUndefined();
  });

  it("carry their id for any run of the same seed, an earlier run's too", () => {
    expect(idInRunNameOfSeed(42, runName(runNamePrefix(42), 5n, 'a-0'))).toBe(5n);
    expect(idInRunNameOfSeed(-42, runName(runNamePrefix(-42), -7n, 'a-0'))).toBe(-7n);
    // Seed 1's text is the start of seed 46's (`1a`): the length of the random part tells them apart.
    expect(idInRunNameOfSeed(1, runName(runNamePrefix(46), 5n, 'a-0'))).toBeUndefined();
    expect(idInRunNameOfSeed(42, 'cf16-1 a plant of someone else')).toBeUndefined();
    expect(idInRunNameOfSeed(42, 42)).toBeUndefined();
  });
});

it('sends ids far enough inside the block that what a double makes of them stays in it, for cleanup to delete', () => {
  for (const seed of [1, 2, 3]) {
    const range = reservedRange(seed);
    for (const id of fc.sample(range.arbitrary, { seed, numRuns: 500 })) {
      const double = Number(id);
      for (const stored of [id, BigInt(double), BigInt(String(double))]) expect(range.has(stored)).toBe(true);
    }
  }
});
