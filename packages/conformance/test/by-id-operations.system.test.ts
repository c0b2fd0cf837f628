// A contract with by-id operations added, getPlant (GET /plants/{id}) and updatePlant (PUT /plants/{id}), is checked
// with no false failure against a deployment that serves them correctly: the checker learns from method and path that
// they read and update one plant, sends them ids it created, and expects a 404 for ids it never made or deleted. A
// deployment that reads an id never created fails getPlant/expected-status; one whose updates change nothing,
// updatePlant/update-applied.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LinkFacts, OperationFacts } from '@plant-store/contract';
import { readOpenApiDocument } from '@plant-store/contract/document';
import { startTestServer, type TestServer } from '@plant-store/test-kit';
import { servesPlantsById, startProxy } from '@plant-store/test-kit/broken-deployments';
import { conformanceArgs, tally } from '@plant-store/test-kit/conformance-run';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type ConformanceContract, loadConformanceContract } from '../src/contract.js';
import { runConformance } from '../src/run-conformance.js';

type Node = Record<string, unknown>;

/** The generator `pnpm gen` runs (imported by URL: it belongs to the scripts' own project). */
interface FactsGenerator {
  operationFacts(document: Node): OperationFacts[];
  linkFacts(document: Node): LinkFacts[];
}

/** openapi.yaml with getPlant and updatePlant added to /plants/{id}, as a contract change adds them. */
function withByIdOperations(original: Node): Node {
  const document = structuredClone(original) as Node & {
    paths: Record<string, Record<string, Node>>;
    components: { schemas: Record<string, Node> };
  };
  const item = document.paths['/plants/{id}']!;
  const remove = item.delete as { parameters: Node[]; responses: Record<string, Node> };
  const create = document.paths['/plants']!.post as { responses: Record<string, Node> };
  const { '204': _deleted, ...errors } = remove.responses;
  const plant = {
    description: 'The plant',
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Plant' } } },
  };
  item.get = {
    operationId: 'getPlant',
    summary: 'Get Plant',
    'x-required-scope': 'read',
    parameters: remove.parameters,
    responses: { '200': plant, ...errors },
  };
  item.put = {
    operationId: 'updatePlant',
    summary: 'Update Plant',
    'x-required-scope': 'write',
    parameters: remove.parameters,
    requestBody: {
      required: true,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/PlantUpdate' } } },
    },
    responses: { '200': plant, '413': create.responses['413']!, '415': create.responses['415']!, ...errors },
  };
  document.components.schemas.PlantUpdate = {
    description: 'A Plant as an update sends it. Fields other than name and tag are refused.',
    allOf: [{ $ref: '#/components/schemas/Plant' }],
    unevaluatedProperties: false,
  };
  return document;
}

const folder = mkdtempSync(join(tmpdir(), 'plant-store-by-id-contract-'));
let contract: ConformanceContract;
let t: TestServer;
let principals = 0;

beforeAll(async () => {
  const generator = (await import(String(new URL('../../../scripts/gen-facts.ts', import.meta.url)))) as FactsGenerator;
  const document = withByIdOperations(readOpenApiDocument().document);
  const path = join(folder, 'openapi.json');
  writeFileSync(path, JSON.stringify(document));
  contract = loadConformanceContract({
    path,
    operations: generator.operationFacts(document),
    links: generator.linkFacts(document),
  });
  t = await startTestServer({ env: { RATE_LIMIT_MAX: '0', RATE_LIMIT_ANONYMOUS_MAX: '0' } });
});
afterAll(async () => {
  await t?.close();
  rmSync(folder, { recursive: true, force: true });
});

/** A run of the changed contract through `servesPlantsById` with `options`, three principals. */
async function runAgainst(options: Parameters<typeof servesPlantsById>[1], requests: number) {
  const proxy = await startProxy(t.url, servesPlantsById(t.url, options));
  principals++;
  const tokens = await Promise.all([
    t.token(`by-id-${principals}-a`),
    t.token(`by-id-${principals}-b`),
    t.token(`by-id-${principals}-reader`, ['read']),
  ]);
  try {
    const lines: string[] = [];
    const args = conformanceArgs({
      baseUrl: proxy.url,
      tokens: [tokens[0], tokens[1]],
      args: ['--read-token', tokens[2], '--requests', String(requests), '--seed', '20261201'],
    });
    const code = await runConformance(args, {
      stdout: (line) => lines.push(line),
      stderr: (line) => lines.push(line),
      env: {},
      contract,
    });
    return { code, output: lines.join('\n') };
  } finally {
    await proxy.close();
  }
}

it('learns from method and path that getPlant reads and updatePlant updates one plant', () => {
  expect(contract.operations.map(({ operationId, role }) => `${operationId} ${role}`)).toEqual(
    expect.arrayContaining(['getPlant read', 'updatePlant update', 'deletePlant delete', 'createPlant create']),
  );
});

it('passes a deployment that serves them correctly, having read and updated plants it created', async () => {
  const run = await runAgainst({}, 300);
  expect(run.code, run.output).toBe(0);
  // It read and updated plants it had created: answers that are no error (declared, but not in the Error shape).
  for (const operationId of ['getPlant', 'updatePlant']) {
    const declared = tally(run.output, operationId, 'declared-status')?.passed ?? 0;
    const errors = tally(run.output, operationId, 'error-shape')?.passed ?? 0;
    expect(declared - errors, run.output).toBeGreaterThan(3);
  }
  expect(run.output).not.toContain('LEFT BEHIND');
}, 120_000);

it('fails getPlant/expected-status where a read of an id never created answers 200', async () => {
  const run = await runAgainst({ readsUnknownIds: true }, 100);
  expect(run.code, run.output).toBe(1);
  expect(run.output).toMatch(/^FAILED: getPlant\/expected-status \(seed \d+\)$/m);
}, 120_000);

it('fails updatePlant/update-applied where an update is acknowledged and changes nothing', async () => {
  const run = await runAgainst({ ignoresUpdates: true }, 300);
  expect(run.code, run.output).toBe(1);
  expect(run.output).toMatch(/^FAILED: updatePlant\/update-applied \(seed \d+\)$/m);
  expect(run.output).toMatch(
    /^\d+\. updatePlant\/update-applied: plant -?\d+ was updated .*, but the list right after does not show that name$/m,
  );
}, 120_000);
