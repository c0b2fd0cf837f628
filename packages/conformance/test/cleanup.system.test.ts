// Cleanup always: through a deployment that reads ids as doubles (9007199254740993 is stored as 9007199254740992),
// the run's deletes by the ids it sent miss, and it still leaves nothing behind: it finds its plants by the run's name
// prefix (also the creates whose id it sent as `<id>.5`) and deletes them under the id the deployment made of them.
// Its misses (404s) are no failures of the delete, only what it leaves behind is (the `cleanup` check); a delete whose
// answer breaks the contract still fails. A run that created nothing looks for nothing. Before it writes, a run deletes
// what an earlier run with the same seed left behind, and says so.
import { startTestServer, type TestServer } from '@plant-store/test-kit';
import {
  type Breakage,
  deletesUnknownWith200,
  forgetsDeletes,
  numbersAsDoubles,
  serverErrorOnLargestPage,
  startProxy,
} from '@plant-store/test-kit/broken-deployments';
import { conformance, runConformance } from '@plant-store/test-kit/conformance-run';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConformanceOptions, parseConformanceArguments } from '../src/arguments.js';
import { cleanUp } from '../src/cleanup.js';
import { loadConformanceContract } from '../src/contract.js';
import { HttpClient } from '../src/http-client.js';
import { Results } from '../src/report.js';
import { Ledger, reservedRange } from '../src/reserved-ids.js';
import { callerFor, type RunContext } from '../src/run-context.js';
import { runName, runNamePrefix } from '../src/run-names.js';

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer({ env: { RATE_LIMIT_MAX: '0', RATE_LIMIT_ANONYMOUS_MAX: '0' } });
});
afterAll(() => t.close());

const plantsOf = async (subject: string) =>
  JSON.parse(new TextDecoder().decode((await t.store.plants.list(subject, { limit: 1000 })).body)) as unknown[];

it.each([
  ['rounded their ids', 'mangled', numbersAsDoubles],
  // The sweep lists the largest pages first; where those fail, pages of the default size.
  ['rounded their ids and fails a page of 1000', 'mangled-paged', { ...numbersAsDoubles, ...serverErrorOnLargestPage }],
] as [string, string, Breakage][])(
  'deletes every plant it created although the deployment %s',
  async (_name, subject, breakage) => {
    const proxy = await startProxy(t.url, breakage);
    try {
      const [first, second] = await Promise.all([t.token(`${subject}-a`), t.token(`${subject}-b`)]);
      const run = await runConformance({ baseUrl: proxy.url, tokens: [first, second], args: ['--requests', '40'] });
      expect(run.code, run.output).toBe(1);
      expect(run.output).toMatch(/^FAILED: .*id-exact/m);
      expect(run.output).not.toContain('LEFT BEHIND');
      expect(run.output).toMatch(/deleted [1-9]\d* plants the run created\./);
      expect(await plantsOf(`${subject}-a`)).toEqual([]);
      expect(await plantsOf(`${subject}-b`)).toEqual([]);
    } finally {
      await proxy.close();
    }
  },
  120_000,
);

// Seeds whose runs once left a plant behind: a create whose one broken rule was its id's form (`<id>.5`), which the
// deployment stored as an integer under a name the run had not given it, so the sweep by name could not find it.
it.each([1, 19, 23])(
  'deletes every plant it created, also the creates with a wrong form of their id, through rounding ids (seed %i)',
  async (seed) => {
    const proxy = await startProxy(t.url, numbersAsDoubles);
    try {
      const subject = `mangled-seed-${seed}`;
      const [first, second] = await Promise.all([t.token(`${subject}-a`), t.token(`${subject}-b`)]);
      const run = await runConformance({
        baseUrl: proxy.url,
        tokens: [first, second],
        args: ['--requests', '40', '--seed', String(seed)],
      });
      expect(run.code, run.output).toBe(1);
      // The run sent such a create and the deployment stored it: the case this test is about did happen.
      expect(run.output).toMatch(/^FAILED: .*negative-data-rejection/m);
      expect(run.output).not.toContain('LEFT BEHIND');
      expect(await plantsOf(`${subject}-a`)).toEqual([]);
      expect(await plantsOf(`${subject}-b`)).toEqual([]);
      // Nor does it ask for a hand to delete what its own cleanup deleted.
      expect(run.output).not.toContain('delete it by hand');
    } finally {
      await proxy.close();
    }
  },
  120_000,
);

it('looks for nothing to clean up when it created nothing (a refused token: one request, then exit 2)', async () => {
  const proxy = await startProxy(t.url);
  try {
    const run = await conformance(['--base-url', proxy.url, '--token', 'pst_not-a-token-of-this-service']);
    expect(run.code, run.output).toBe(2);
    expect(proxy.seen.map((request) => `${request.method} ${request.url}`)).toEqual(['GET /plants?limit=1']);
  } finally {
    await proxy.close();
  }
});

/** A run's context against `baseUrl` as `plant-store conformance` builds it, for cleanUp by itself. */
function runContext(baseUrl: string, token: string, seed: number): RunContext {
  const options = parseConformanceArguments(
    ['--base-url', baseUrl, '--token', token, '--seed', String(seed)],
    {},
  ) as ConformanceOptions;
  const client = new HttpClient({ baseUrl: options.baseUrl, tokens: { token } });
  const results = new Results(options.checks);
  const signal = new AbortController().signal;
  return {
    options,
    contract: loadConformanceContract(),
    client,
    results,
    range: reservedRange(seed),
    ledger: new Ledger(),
    namePrefix: runNamePrefix(seed),
    signal,
    call: callerFor(client, results, signal),
  };
}

/** Creates `count` plants through `run`'s client, as a run does (run names, ids of its block that no double holds
 * exactly: a deployment that rounds stores each under another id), and enters them in its ledger. */
async function createPlants(run: RunContext, count: number): Promise<bigint[]> {
  const create = run.contract.byRole('create')!;
  const ids: bigint[] = [];
  for (let offset = 5000n; ids.length < count; offset += 777n) {
    const id = run.range.at(offset);
    if (BigInt(Number(id)) === id) continue;
    const body = JSON.stringify({ id: 0, name: runName(run.namePrefix, id, 'fern') }).replace('0', String(id));
    const answer = await run.client.send(
      {
        method: create.method,
        target: create.path,
        principal: 'token',
        headers: { 'content-type': 'application/json' },
        body,
      },
      run.signal,
    );
    expect(answer.status, answer.text).toBe(create.successStatus);
    run.ledger.add('token', id);
    ids.push(id);
  }
  return ids;
}

const failuresOf = (run: RunContext) => run.results.failures.map((f) => `${f.operationId}/${f.check}: ${f.message}`);

describe('cleanUp', () => {
  it('reports the deletes that miss through a deployment that rounds ids as its own, not as failures of the delete', async () => {
    const proxy = await startProxy(t.url, numbersAsDoubles);
    try {
      const run = runContext(proxy.url, await t.token('cleanup-misses'), 7);
      const created = await createPlants(run, 4);
      const outcome = await cleanUp(run);
      expect(outcome).toEqual({ deleted: created.length, left: [] });
      expect(await plantsOf('cleanup-misses')).toEqual([]);
      // Every id it sent missed (a 404 each), and the sweep found the plants under the ids the deployment made.
      const remove = run.contract.byRole('delete')!;
      const deletes = proxy.seen.filter((request) => request.method === remove.method);
      expect(deletes.length).toBeGreaterThan(created.length);
      expect(failuresOf(run)).toEqual([]);
      const row = (check: string) =>
        run.results.rows().find((r) => r.operationId === remove.operationId && r.check === check);
      expect(row('expected-status')).toMatchObject({ passed: deletes.length, failed: 0 });
      expect(row('cleanup')).toMatchObject({ passed: 1, failed: 0 });
    } finally {
      await proxy.close();
    }
  });

  const errorAnswer = (status: number) => ({
    status,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ error: status, message: 'refused' }),
  });
  it.each([
    ['a 500', 'no-5xx', { answerInstead: (r) => (r.method === 'DELETE' ? errorAnswer(500) : undefined) }],
    ['a 409', 'expected-status', { answerInstead: (r) => (r.method === 'DELETE' ? errorAnswer(409) : undefined) }],
    ['a 200 the operation does not declare', 'declared-status', deletesUnknownWith200],
  ] as [string, string, Breakage][])(
    'still fails the delete whose answer breaks the contract (%s), and names what it left behind',
    async (_name, check, breakage) => {
      const subject = `cleanup-broken-${check}`;
      const proxy = await startProxy(t.url, { ...numbersAsDoubles, ...breakage });
      try {
        const run = runContext(proxy.url, await t.token(subject), 11);
        const created = await createPlants(run, 2);
        const outcome = await cleanUp(run);
        expect(outcome.left.map((left) => left.principal)).toEqual(created.map(() => 'token'));
        const failures = failuresOf(run);
        expect(failures).toContainEqual(expect.stringMatching(new RegExp(`^deletePlant/${check}: DELETE `)));
        expect(failures).toContainEqual(
          expect.stringMatching(
            /^deletePlant\/cleanup: 2 plants the run created could not be deleted \(delete them by hand\)/,
          ),
        );
      } finally {
        await proxy.close();
      }
    },
  );
});

describe('leftovers of an earlier run with the same seed', () => {
  it('deletes the plants an earlier run with its seed left behind, says so, and passes', async () => {
    const tokens = await Promise.all([t.token('leftovers-a'), t.token('leftovers-b')]);
    const proxy = await startProxy(t.url, forgetsDeletes);
    try {
      const broken = await runConformance({ baseUrl: proxy.url, tokens, args: ['--requests', '20', '--seed', '42'] });
      expect(broken.code, broken.output).toBe(1);
      expect(broken.output).toContain('LEFT BEHIND');
    } finally {
      await proxy.close();
    }
    const left = (await plantsOf('leftovers-a')).length + (await plantsOf('leftovers-b')).length;
    expect(left).toBeGreaterThan(0);

    const healthy = await runConformance({ baseUrl: t.url, tokens, args: ['--requests', '20', '--seed', '42'] });
    expect(healthy.code, healthy.output).toBe(0);
    expect(healthy.output).toContain(
      `leftovers: found ${left} plants an earlier run with seed 42 left in its ids; deleted ${left} of them first.`,
    );
    expect(await plantsOf('leftovers-a')).toEqual([]);
    expect(await plantsOf('leftovers-b')).toEqual([]);
  }, 120_000);

  it('says nothing of leftovers when there are none', async () => {
    const tokens = await Promise.all([t.token('no-leftovers-a'), t.token('no-leftovers-b')]);
    const run = await runConformance({ baseUrl: t.url, tokens, args: ['--requests', '0', '--seed', '42'] });
    expect(run.code, run.output).toBe(0);
    expect(run.output).not.toContain('leftovers');
  }, 120_000);
});
