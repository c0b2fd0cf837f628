// Contract fuzzing: requests generated from openapi.yaml's own schemas, valid and invalid, sent to the real app.
// Every answer must be one the contract declares (checked by an independent validator), valid requests must be
// accepted, invalid ones refused with the right status, and nothing may leak a stack trace, SQL or a file path.
// FUZZ_RUNS scales it (CI default: 2,500 single requests plus 150 stateful sequences).
import SwaggerParser from '@apidevtools/swagger-parser';
import { invalidValue, type Schema, toJson, validValue } from '@plant-store/conformance/schema-arbitraries';
import { flattenAllOf, INT64_MAX, INT64_MIN } from '@plant-store/contract';
import { OPENAPI_PATH } from '@plant-store/contract/document';
import { createTestApp, type TestApp } from '@plant-store/test-kit';
import { type Answer, call } from '@plant-store/test-kit/contract-call';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const RUNS = Number(process.env.FUZZ_RUNS ?? 2500);
const LEAKS = /\bat \S+ \(|\.ts:\d+|node_modules|\/work\/|SQLITE_|sqlite3?\b|SELECT |INSERT |postgres/i;

let t: TestApp;
let token: string;
let newPlant: Schema;
let limitSchema: Schema;
let idSchema: Schema;

beforeAll(async () => {
  t = await createTestApp({ env: { RATE_LIMIT_MAX: '0' } });
  token = await t.token('fuzzer');
  const document = (await SwaggerParser.dereference(OPENAPI_PATH)) as unknown as {
    paths: Record<
      string,
      Record<
        string,
        {
          requestBody?: { content: Record<string, { schema: Schema }> };
          parameters?: { name: string; schema: Schema }[];
        }
      >
    >;
  };
  const plants = document.paths['/plants']!;
  newPlant = plants.post!.requestBody!.content['application/json']!.schema;
  limitSchema = plants.get!.parameters!.find((p) => p.name === 'limit')!.schema;
  idSchema = document.paths['/plants/{id}']!.delete!.parameters!.find((p) => p.name === 'id')!.schema;
});
afterAll(() => t.close());

function assertSafe(answer: Answer) {
  expect(answer.status).toBeLessThan(500);
  expect(answer.text).not.toMatch(LEAKS);
}

interface Case {
  label: string;
  request: Parameters<typeof call>[1];
  /** The statuses the contract allows for this request. */
  expect: number[];
}

const cases = () => {
  const body = (text: string, contentType = 'application/json') => ({
    method: 'POST' as const,
    url: '/plants',
    path: '/plants' as const,
    token,
    body: text,
    headers: { 'content-type': contentType },
  });
  return fc.oneof(
    validValue(newPlant).map((plant) => ({ label: 'valid create', request: body(toJson(plant)), expect: [200, 409] })),
    invalidValue(newPlant).map(({ value, breaks }) => ({
      label: `invalid create (${breaks})`,
      request: body(toJson(value)),
      expect: [400],
    })),
    validValue(newPlant).chain((plant) =>
      fc.integer({ min: 1, max: 20 }).map((cut) => {
        const text = toJson(plant);
        return { label: 'truncated JSON', request: body(text.slice(0, Math.max(0, text.length - cut))), expect: [400] };
      }),
    ),
    fc
      .constantFrom('text/plain', 'application/xml', 'application/x-www-form-urlencoded', 'multipart/form-data')
      .chain((type) =>
        validValue(newPlant).map((plant) => ({
          label: `content type ${type}`,
          request: body(toJson(plant), type),
          expect: [415],
        })),
      ),
    fc.integer({ min: 16_385, max: 60_000 }).map((size) => ({
      label: 'oversized body',
      request: body(`{"id": 1, "name": "${'x'.repeat(size)}"}`),
      expect: [413],
    })),
    fc.integer({ min: 100, max: 5_000 }).map((depth) => ({
      label: 'deeply nested body',
      request: body(`{"id": 1, "name": "x", "deep": ${'['.repeat(depth)}${']'.repeat(depth)}}`),
      expect: [400],
    })),
    fc.constantFrom('__proto__', 'constructor', 'prototype').map((key) => ({
      label: `${key} key`,
      request: body(`{"id": 1, "name": "x", "${key}": {"polluted": true}}`),
      expect: [400],
    })),
    validValue(limitSchema).map((limit) => ({
      label: 'valid list',
      request: { method: 'GET' as const, url: `/plants?limit=${limit}`, path: '/plants' as const, token },
      expect: [200],
    })),
    invalidValue(limitSchema)
      // On the wire every query value is text: "12" is a fine limit, so only values that do not read as one count.
      .filter(({ value, breaks }) => breaks !== 'type' || !/^-?\d+$/.test(String(value)))
      .map(({ value, breaks }) => ({
        label: `invalid limit (${breaks})`,
        request: {
          method: 'GET' as const,
          url: `/plants?limit=${encodeURIComponent(String(value))}`,
          path: '/plants' as const,
          token,
        },
        expect: [400],
      })),
    fc.string({ minLength: 1, maxLength: 80 }).map((cursor) => ({
      label: 'foreign cursor',
      request: {
        method: 'GET' as const,
        url: `/plants?cursor=${encodeURIComponent(cursor)}`,
        path: '/plants' as const,
        token,
      },
      expect: [400],
    })),
    validValue(idSchema).map((id) => ({
      label: 'valid delete',
      request: { method: 'DELETE' as const, url: `/plants/${id}`, path: '/plants/{id}' as const, token },
      expect: [204, 404],
    })),
    fc
      .oneof(
        invalidValue(idSchema)
          .filter(({ value, breaks }) => breaks !== 'type' || !/^-?\d+$/.test(String(value)))
          .map(({ value }) => String(value)),
        fc.string({ minLength: 1, maxLength: 30 }).filter((text) => !/^-?\d+$/.test(text) && !text.includes('/')),
      )
      .map((id) => ({
        label: 'invalid delete id',
        request: {
          method: 'DELETE' as const,
          url: `/plants/${encodeURIComponent(id)}`,
          path: '/plants/{id}' as const,
          token,
        },
        expect: [400],
      })),
    fc
      .oneof(
        fc.constant(undefined),
        fc.string({ maxLength: 60 }),
        fc.string({ maxLength: 60 }).map((s) => `Bearer ${s}`),
      )
      .filter((header) => header !== `Bearer ${token}`)
      .map((authorization) => ({
        label: 'bad credentials',
        request: {
          method: 'GET' as const,
          url: '/plants',
          path: '/plants' as const,
          headers: authorization === undefined ? {} : { authorization },
        },
        expect: [401],
      })),
  ) as fc.Arbitrary<Case>;
};

describe('contract fuzzing', () => {
  it(`answers ${RUNS} generated requests as the contract says`, async () => {
    const seen = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(cases(), async ({ label, request, expect: allowed }) => {
        const answer = await call(t.app, request);
        assertSafe(answer);
        const kind = label.replace(/ \(.*/, '');
        seen.set(kind, (seen.get(kind) ?? 0) + 1);
        expect(allowed, `${label}: ${answer.status} ${answer.text.slice(0, 200)}`).toContain(answer.status);
      }),
      { numRuns: RUNS },
    );
    // Every kind of request was really exercised.
    expect(seen.size).toBeGreaterThanOrEqual(12);
  }, 300_000);

  it('keeps the store equal to a model through create, list, delete and delete-again sequences', async () => {
    const ids = fc.oneof(
      fc.integer({ min: -3, max: 3 }).map(BigInt),
      fc.constantFrom(INT64_MAX, INT64_MIN, 2n ** 53n + 1n),
    );
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(
            fc.record({
              op: fc.constant('create' as const),
              id: ids,
              name: validValue(
                (flattenAllOf(newPlant).properties as Record<string, Schema>).name!,
              ) as fc.Arbitrary<string>,
            }),
            fc.record({ op: fc.constant('delete' as const), id: ids }),
            fc.record({ op: fc.constant('list' as const), limit: fc.integer({ min: 1, max: 4 }) }),
          ),
          { minLength: 1, maxLength: 25 },
        ),
        async (commands) => {
          const owner = await t.token(`model-${run++}`);
          const model = new Map<bigint, string>();
          for (const command of commands) {
            if (command.op === 'create') {
              const answer = await call(t.app, {
                method: 'POST',
                url: '/plants',
                path: '/plants',
                token: owner,
                body: toJson({ id: command.id, name: command.name }),
                headers: { 'content-type': 'application/json' },
              });
              expect(answer.status).toBe(model.has(command.id) ? 409 : 200);
              if (!model.has(command.id)) model.set(command.id, command.name);
            } else if (command.op === 'delete') {
              const answer = await call(t.app, {
                method: 'DELETE',
                url: `/plants/${command.id}`,
                path: '/plants/{id}',
                token: owner,
              });
              expect(answer.status).toBe(model.has(command.id) ? 204 : 404);
              model.delete(command.id);
            } else {
              const names: string[] = [];
              let url: string | undefined = `/plants?limit=${command.limit}`;
              while (url) {
                const answer = await call(t.app, { method: 'GET', url, path: '/plants', token: owner });
                names.push(...(answer.json() as { name: string }[]).map((plant) => plant.name));
                url = /^<([^>]+)>/.exec(String(answer.headers.link ?? ''))?.[1];
              }
              const expected = [...model.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, name]) => name);
              expect(names).toEqual(expected);
            }
          }
        },
      ),
      { numRuns: Math.max(20, Math.round(RUNS / 16)) },
    );
  }, 300_000);
});
