// `pnpm contract:check` on the real contract and on broken copies of it: each break must fail the check, naming it.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { findBreakingChanges } from '../breaking-changes.js';

const run = promisify(execFile);
const root = new URL('../..', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'contract-check-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// biome-ignore lint/suspicious/noExplicitAny: a YAML document edited freely by each case
type Doc = any;
const original = (): Doc => parse(readFileSync(join(root, 'openapi.yaml'), 'utf8'));

async function contractCheck(document: Doc | null): Promise<{ code: number; output: string }> {
  const args = ['--import', 'tsx', join(root, 'scripts/contract-check.ts')];
  if (document) {
    const path = join(dir, `${Math.random().toString(36).slice(2)}.yaml`);
    writeFileSync(path, stringify(document));
    args.push(path);
  }
  try {
    const { stdout } = await run(process.execPath, args, { cwd: root });
    return { code: 0, output: stdout };
  } catch (error) {
    const failure = error as { code: number; stdout: string };
    return { code: failure.code, output: failure.stdout };
  }
}

async function breaks(edit: (document: Doc) => void): Promise<string[]> {
  const next = original();
  edit(next);
  const [a, b] = await Promise.all([SwaggerParser.dereference(original()), SwaggerParser.dereference(next)]);
  return findBreakingChanges(a, b);
}

describe('pnpm contract:check', () => {
  it('passes the real contract', async () => {
    const { code, output } = await contractCheck(null);
    expect(output).not.toContain('FAIL');
    expect(output.match(/^PASS/gm)).toHaveLength(4);
    expect(code).toBe(0);
  });

  it.each([
    ['removing tag from Plant', (d: Doc) => delete d.components.schemas.Plant.properties.tag, 'property "tag" removed'],
    [
      'renaming an operationId',
      (d: Doc) => {
        d.paths['/plants'].get.operationId = 'listPlants';
      },
      'operationId changed from getPlants to listPlants',
    ],
    [
      'making limit a string',
      (d: Doc) => {
        d.paths['/plants'].get.parameters[0].schema = { type: 'string' };
      },
      'query parameter "limit": type changed from integer to string',
    ],
    [
      'an operation without an operationId',
      (d: Doc) => delete d.paths['/plants/{id}'].delete.operationId,
      'operation-operationId',
    ],
    [
      'a $ref to a missing schema',
      (d: Doc) => {
        d.paths['/plants'].post.responses['200'].content['application/json'].schema.$ref = '#/components/schemas/Nope';
      },
      'FAIL valid OpenAPI document',
    ],
    [
      'an operation with no default response',
      (d: Doc) => delete d.paths['/plants/{id}'].delete.responses.default,
      'no default response',
    ],
  ])('fails on %s', async (_case, edit, message) => {
    const document = original();
    edit(document);
    const { code, output } = await contractCheck(document);
    expect(code).toBe(1);
    expect(output).toContain(message);
  });
});

describe('findBreakingChanges', () => {
  it('finds nothing between the contract and itself', async () => {
    expect(await breaks(() => {})).toEqual([]);
  });

  it('allows additive changes: a new optional query parameter and a new optional response field', async () => {
    const found = await breaks((d) => {
      d.paths['/plants'].get.parameters.push({ name: 'q', in: 'query', schema: { type: 'string' } });
      d.components.schemas.Plant.properties.colour = { type: 'string' };
    });
    expect(found).toEqual([]);
  });

  it.each([
    ['a removed path', (d: Doc) => delete d.paths['/plants/{id}'], 'path /plants/{id} removed'],
    [
      'a removed operation',
      (d: Doc) => delete d.paths['/plants'].post,
      'POST /plants (createPlant): operation removed',
    ],
    [
      'a new required query parameter',
      (d: Doc) =>
        d.paths['/plants'].get.parameters.push({ name: 'q', in: 'query', required: true, schema: { type: 'string' } }),
      'new required query parameter "q"',
    ],
    [
      'a lowered maximum of limit',
      (d: Doc) => {
        d.paths['/plants'].get.parameters[0].schema.maximum = 50;
      },
      'maximum tightened from 1000 to 50',
    ],
    [
      'a response field made optional',
      (d: Doc) => {
        d.components.schemas.Error.required = ['error'];
      },
      'property "message" is no longer always present',
    ],
    [
      'a shorter maxLength for name',
      (d: Doc) => {
        d.components.schemas.Plant.properties.name.maxLength = 10;
      },
      'request body.name: maxLength tightened from 200 to 10',
    ],
    [
      'a newly required request field',
      (d: Doc) => {
        d.components.schemas.Plant.required = ['name', 'tag'];
      },
      'property "tag" is newly required',
    ],
    [
      'a removed success response',
      (d: Doc) => {
        d.paths['/plants/{id}'].delete.responses['200'] = d.paths['/plants/{id}'].delete.responses['204'];
        delete d.paths['/plants/{id}'].delete.responses['204'];
      },
      'success response 204 removed',
    ],
    [
      'an id type change',
      (d: Doc) => {
        d.paths['/plants/{id}'].delete.parameters[0].schema = { type: 'string' };
      },
      'path parameter "id": type changed from integer to string',
    ],
    [
      'a changed security requirement',
      (d: Doc) => {
        d.components.securitySchemes.apiKey = { type: 'apiKey', in: 'header', name: 'X-Key' };
        d.security = [{ apiKey: [] }];
      },
      'security requirement bearerAuth: no longer accepted',
    ],
  ])('reports %s', async (_case, edit, message) => {
    const found = await breaks(edit);
    expect(found.join('\n')).toContain(message);
  });
});
