// Cleanup always: through a deployment that reads ids as doubles (9007199254740993 is stored as 9007199254740992),
// the run's deletes by the ids it sent miss, and it still leaves nothing behind: it finds its plants by the run's name
// prefix (also the creates whose id it sent as `<id>.5`) and deletes them under the id the deployment made of them. A
// run that created nothing looks for nothing.
import { startTestServer, type TestServer } from '@plant-store/test-kit';
import {
  type Breakage,
  numbersAsDoubles,
  serverErrorOnLargestPage,
  startProxy,
} from '@plant-store/test-kit/broken-deployments';
import { conformance, runConformance } from '@plant-store/test-kit/conformance-run';
import { afterAll, beforeAll, expect, it } from 'vitest';

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
