// `plant-store conformance` pointed at broken deployments (proxies in front of the real service, each breaking one
// promise of the contract the way gateways, caches and bad builds do): it exits 1 and names the check that caught it.
// An honest proxy in front of the same service passes, so each failure is the breakage's.
import { startTestServer, type TestServer } from '@plant-store/test-kit';
import {
  addsOwnerField,
  assumesJson,
  type Breakage,
  deletesUnknownWith200,
  dropsIdempotencyKey,
  dropsLink,
  failsOnNonAsciiHeaders,
  floodsLargestPage,
  labelsJsonLatin1,
  losesCreatesAfter,
  numbersAsDoubles,
  offsetCursors,
  refusesNonAsciiBodies,
  sendsTerminalEscapes,
  serverErrorOnLargestPage,
  sharedEtagCache,
  sharedPageCache,
  softDeleteKeepsIds,
  staleListCache,
  startProxy,
  TERMINAL_ESCAPES,
  tokenBlindPageCache,
  truncatesLongNames,
  undeclaredMethodAs404,
  unquotesEtag,
} from '@plant-store/test-kit/broken-deployments';
import { runConformance, tally } from '@plant-store/test-kit/conformance-run';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

let t: TestServer;
let principals = 0;

beforeAll(async () => {
  t = await startTestServer({ env: { RATE_LIMIT_MAX: '0', RATE_LIMIT_ANONYMOUS_MAX: '0' } });
});
afterAll(() => t.close());

/** One run through a proxy with `breakage`: the fixed and stateful checks, plus `requests` generated ones. */
async function runThrough(breakage: Breakage, requests: number) {
  const proxy = await startProxy(t.url, breakage);
  principals++;
  const [first, second] = await Promise.all([t.token(`broken-${principals}-a`), t.token(`broken-${principals}-b`)]);
  try {
    return await runConformance({
      baseUrl: proxy.url,
      tokens: [first, second],
      args: ['--requests', String(requests), '--seed', '20261124'],
    });
  } finally {
    await proxy.close();
  }
}

describe('plant-store conformance against broken deployments', () => {
  it('passes through an honest proxy to the same service', async () => {
    const run = await runThrough({}, 10);
    expect(run.code, run.output).toBe(0);
  }, 120_000);

  it.each([
    ['a gateway that drops Link', () => dropsLink, 0, 'getPlants', 'link'],
    ['a proxy that re-encodes JSON numbers as doubles', () => numbersAsDoubles, 0, 'createPlant', 'id-exact'],
    ["a cache that serves principal A's page to principal B", sharedPageCache, 0, 'getPlants', 'principal-isolation'],
    ['a server that answers 500 for limit=1000', () => serverErrorOnLargestPage, 10, 'getPlants', 'no-5xx'],
    [
      'a server that answers 200 to deleting an unknown id',
      () => deletesUnknownWith200,
      0,
      'deletePlant',
      'declared-status',
    ],
    ['a build that adds an undeclared field to a Plant', () => addsOwnerField, 0, 'createPlant', 'undeclared-field'],
    ['a gateway that labels JSON charset=iso-8859-1', () => labelsJsonLatin1, 0, 'getPlants', 'content-type'],
    [
      'a cache that serves a page it was given to a caller without a token',
      sharedPageCache,
      0,
      'getPlants',
      'ignored-auth',
    ],
    [
      'a cache that checks that a token is live but not whose it is',
      tokenBlindPageCache,
      0,
      'getPlants',
      'cache-isolation',
    ],
    [
      'a router that answers an undeclared method 404',
      () => undeclaredMethodAs404,
      0,
      '(PUT /plants)',
      'unsupported-method',
    ],
    [
      'a gateway that takes a body without Content-Type for JSON',
      () => assumesJson,
      0,
      'createPlant',
      'missing-required-header',
    ],
    ['a list cache that creates do not reach', staleListCache, 0, 'createPlant', 'ensure-resource-availability'],
    ['a soft delete that keeps the id taken', softDeleteKeepsIds, 0, 'createPlant', 'use-after-free'],
    ['a gateway that strips the quotes of ETags', () => unquotesEtag, 0, 'getPlants', 'response-headers-conformance'],
    [
      'a build that cuts long names instead of refusing them',
      () => truncatesLongNames,
      40,
      'createPlant',
      'negative-data-rejection',
    ],
    [
      'a firewall that refuses bodies beyond ASCII',
      () => refusesNonAsciiBodies,
      40,
      'createPlant',
      'positive-data-acceptance',
    ],
    [
      'a server that fails on header bytes beyond ASCII',
      () => failsOnNonAsciiHeaders,
      0,
      'getPlants',
      'header-fuzzing',
    ],
    [
      "a cache that answers If-None-Match from another principal's ETag",
      sharedEtagCache,
      0,
      'getPlants',
      'etag-per-principal',
    ],
    ['a gateway that drops Idempotency-Key', () => dropsIdempotencyKey, 0, 'createPlant', 'idempotency'],
    ['cursors that count positions', () => offsetCursors, 0, 'getPlants', 'link-walk-under-writes'],
  ] as const)(
    'fails on %s, naming the check',
    async (_name, breakage, requests, operationId, check) => {
      const run = await runThrough(breakage(), requests);
      expect(run.code, run.output).toBe(1);
      expect(tally(run.output, operationId, check)?.failed, run.output).toBeGreaterThan(0);
      const named = `${escapeRegExp(operationId)}/${check}`;
      expect(run.output).toMatch(new RegExp(`^FAILED: .*${named}`, 'm'));
      // Each failure comes with the request that shows it, as a curl command without the token.
      const failure = new RegExp(`^\\d+\\. ${named}: .*\\n   curl .*`, 'm').exec(run.output)?.[0];
      expect(failure, run.output).toBeDefined();
      expect(failure).not.toMatch(/Bearer [A-Za-z0-9_-]{20,}/);
    },
    120_000,
  );

  it('catches a token-blind cache by cache-isolation, while ignored-auth passes (each token it serves is live)', async () => {
    const run = await runThrough(tokenBlindPageCache(), 0);
    expect(tally(run.output, 'getPlants', 'cache-isolation')?.failed, run.output).toBeGreaterThan(0);
    expect(tally(run.output, 'getPlants', 'ignored-auth'), run.output).toMatchObject({ failed: 0 });
  }, 120_000);

  it("catches a cache that answers If-None-Match from another principal's ETag by etag-per-principal alone", async () => {
    const run = await runThrough(sharedEtagCache(), 0);
    expect(run.output).toMatch(/^FAILED: getPlants\/etag-per-principal \(seed \d+\)$/m);
  }, 120_000);

  it('fails writes-durable for the plants a store loses some time after acknowledging their creates', async () => {
    // Shorter than a run: the first creates are gone by its end, whatever the machine's speed.
    const breakage = losesCreatesAfter(t.url, 50);
    try {
      const run = await runThrough(breakage, 0);
      expect(run.code, run.output).toBe(1);
      expect(tally(run.output, 'createPlant', 'writes-durable')?.failed, run.output).toBeGreaterThan(0);
      expect(run.output).toMatch(
        /^\d+\. createPlant\/writes-durable: token created plant -?\d+ during the run and never deleted it, but it is no longer listed$/m,
      );
    } finally {
      breakage.stop();
    }
  }, 120_000);

  it('stops reading an answer at 16 MiB and fails the check that got it', async () => {
    const run = await runThrough(floodsLargestPage, 10);
    expect(run.code, run.output).toBe(1);
    expect(tally(run.output, 'getPlants', 'answered')?.failed, run.output).toBeGreaterThan(0);
    expect(run.output).toMatch(/^\d+\. getPlants\/answered: GET \S+limit=1000\S*: the answer is larger than 16 MiB/m);
    expect(run.output).toMatch(/^FAILED: .*getPlants\/answered/m);
  }, 120_000);

  it('prints what the deployment sent with its control characters escaped, never raw', async () => {
    const run = await runThrough(sendsTerminalEscapes, 0);
    expect(run.code, run.output).toBe(1);
    expect(tally(run.output, '(deployment)', 'served-contract')?.failed, run.output).toBe(1);
    expect(tally(run.output, 'createPlant', 'undeclared-field')?.failed, run.output).toBeGreaterThan(0);
    // Lines are joined with \n here: any other C0, DEL or C1 character came from the deployment.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
    expect(run.output).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    expect(run.output).not.toContain(TERMINAL_ESCAPES);
    expect(run.output).toContain(
      'serves contract \\u001b[2J\\u001b]0;owned\\u0007\\u009b31m\\u007f\\u000d\\u000aPASSED',
    );
    expect(run.output).toContain('fields the contract does not declare: \\u001b[2J');
    // The one verdict line is the real one.
    expect(run.output.match(/^(PASSED|FAILED)/gm)).toEqual(['FAILED']);
  }, 120_000);
});
