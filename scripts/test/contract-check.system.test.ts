// `pnpm contract:check` on the real contract and on copies broken one way each: every break must fail the check and
// be named in its output; an additive change must pass. Then findBreakingChanges on its own, case by case.
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import SwaggerParser from '@apidevtools/swagger-parser';
import { OPENAPI_PATH } from '@plant-store/contract/document';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { findBreakingChanges } from '../breaking-changes.js';
import { checkContract, formatResults } from '../contract-check.js';

const root = new URL('../..', import.meta.url).pathname;
const contract = OPENAPI_PATH;
const released = join(root, 'contract-releases/1.0.0.yaml');
// The newest release, the baseline when no --base is given.
const newest = readdirSync(join(root, 'contract-releases'))
  .filter((name) => /^\d+\.\d+\.\d+\.yaml$/.test(name))
  .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }))
  .at(-1);
const dir = mkdtempSync(join(tmpdir(), 'contract-check-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// biome-ignore lint/suspicious/noExplicitAny: each case edits the parsed YAML freely
type Doc = any;
const original = (): Doc => parse(readFileSync(contract, 'utf8'));
let written = 0;

function writeEdited(edit: (document: Doc) => void): string {
  const document = original();
  edit(document);
  const path = join(dir, `contract-${++written}.yaml`);
  writeFileSync(path, stringify(document));
  return path;
}

async function cli(...args: string[]): Promise<{ code: number; output: string }> {
  const script = join(root, 'scripts/contract-check.ts');
  try {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--conditions=source', '--import', 'tsx', script, ...args],
      { cwd: root },
    );
    return { code: 0, output: stdout };
  } catch (error) {
    const failure = error as { code: number; stdout: string; stderr: string };
    return { code: failure.code, output: `${failure.stdout}${failure.stderr}` };
  }
}

describe('pnpm contract:check from the command line', () => {
  it('passes the real contract with three PASS lines and exit code 0', async () => {
    const { code, output } = await cli();
    expect(output).not.toContain('FAIL');
    expect(output.match(/^PASS /gm)).toHaveLength(3);
    expect(code).toBe(0);
  });

  it('exits 1 with a FAIL line naming the break', async () => {
    const path = writeEdited((d) => delete d.paths['/plants/{id}']);
    // Without --base the baseline is the newest release.
    const { code, output } = await cli(path);
    expect(code).toBe(1);
    expect(output).toContain(`FAIL no breaking changes against contract-releases/${newest}\n`);
    expect(output).toContain('path /plants/{id} removed, and with it DELETE /plants/{id} (deletePlant)');
  });

  it('reports a break listed in contract-releases/accepted-breaks.yaml as a note, and fails any other', async () => {
    // The breaks were made in 1.1.0, so they show against 1.0.0 (and not against 1.1.0, which already has them).
    const { code, output } = await cli(contract, '--base', released);
    expect(code).toBe(0);
    expect(output).toContain('~ accepted since 1.1.0: POST /plants (createPlant): request body.name: pattern changed');
    expect((await cli()).output).not.toContain('~ accepted');

    const tighter = writeEdited((d) => {
      d.components.schemas.Plant.properties.name.pattern = '^[a-z]*$';
    });
    const refused = await cli(tighter, '--base', released);
    expect(refused.code).toBe(1);
    expect(refused.output).toContain(
      'request body.name: pattern changed from ^[^\\u0000-\\u001F\\u007F]*$ to ^[a-z]*$',
    );
  });

  it('fails when accepted-breaks.yaml lists a change the document does not make', async () => {
    const reverted = writeEdited((d) => {
      d.components.schemas.Plant.properties.tag.pattern = '^[^\\u0000-\\u001F\\u007F]*$';
    });
    const { code, output } = await cli(reverted, '--base', released);
    expect(code).toBe(1);
    expect(output).toContain(
      'accepted-breaks.yaml lists a change that is not made: POST /plants (createPlant): request body.tag',
    );
  });

  it('takes the baseline from --base', async () => {
    const newer = writeEdited((d) => {
      d.paths['/plants'].get.parameters.push({
        name: 'q',
        in: 'query',
        description: 'Search.',
        schema: { type: 'string' },
      });
    });
    expect((await cli(newer, '--base', released)).code).toBe(0);
    // Going back from the newer release drops the parameter its clients may send.
    const { code, output } = await cli(contract, `--base=${newer}`);
    expect(code).toBe(1);
    expect(output).toContain('GET /plants (getPlants): query parameter "q" removed');
  });

  it('refuses arguments it does not know with exit code 2', async () => {
    const { code, output } = await cli('--frobnicate');
    expect(code).toBe(2);
    expect(output).toContain('usage: contract-check');
  });
});

describe('contract:check on broken copies of the contract', () => {
  const cases: [string, (d: Doc) => void, string, string][] = [
    [
      'removing the tag property of Plant',
      (d) => delete d.components.schemas.Plant.properties.tag,
      'breaking',
      'GET /plants (getPlants): response 200[]: property "tag" removed',
    ],
    [
      'renaming an operationId',
      (d) => {
        d.paths['/plants'].get.operationId = 'listPlants';
      },
      'breaking',
      'GET /plants (getPlants): operationId changed from getPlants to listPlants',
    ],
    [
      'making limit a string',
      (d) => {
        d.paths['/plants'].get.parameters[0].schema = { type: 'string' };
      },
      'breaking',
      'GET /plants (getPlants): query parameter "limit": type changed from integer to string',
    ],
    [
      'removing the DELETE operation',
      (d) => delete d.paths['/plants/{id}'].delete,
      'breaking',
      'DELETE /plants/{id} (deletePlant): operation removed',
    ],
    [
      'removing a path',
      (d) => delete d.paths['/plants/{id}'],
      'breaking',
      'path /plants/{id} removed, and with it DELETE /plants/{id} (deletePlant)',
    ],
    [
      'adding a required query parameter',
      (d) => {
        d.paths['/plants'].get.parameters.push({
          name: 'owner',
          in: 'query',
          required: true,
          description: 'Whose plants.',
          schema: { type: 'string' },
        });
      },
      'breaking',
      'GET /plants (getPlants): new required query parameter "owner"',
    ],
    [
      'lowering the maximum of limit',
      (d) => {
        d.paths['/plants'].get.parameters[0].schema.maximum = 500;
      },
      'breaking',
      'GET /plants (getPlants): query parameter "limit": maximum tightened from 1000 to 500',
    ],
    [
      'making Error.message optional',
      (d) => {
        d.components.schemas.Error.required = ['error'];
      },
      'breaking',
      'DELETE /plants/{id} (deletePlant): response 400/401/403/404/429/default: property "message" is no longer required',
    ],
    [
      'dropping the default response',
      (d) => delete d.paths['/plants/{id}'].delete.responses.default,
      'lint',
      'rule/default-response: every operation declares a `default` response',
    ],
    [
      'an operation without an operationId',
      (d) => delete d.paths['/plants/{id}'].delete.operationId,
      'lint',
      'rule/operationId-required: every operation under paths has an operationId',
    ],
    [
      'an operationId that is not camelCase',
      (d) => {
        d.paths['/plants'].post.operationId = 'create_plant';
      },
      'lint',
      'rule/operationId-camel-case: operationId must be camelCase',
    ],
    [
      'a failure response without the Error schema',
      (d) => {
        d.paths['/plants/{id}'].delete.responses['404'].content['application/json'].schema = { type: 'string' };
      },
      'lint',
      'DELETE /plants/{id} (deletePlant): response 404 (application/json) does not use #/components/schemas/Error',
    ],
    [
      'a $ref to a missing schema',
      (d) => {
        d.paths['/plants'].post.responses['200'].content['application/json'].schema.$ref = '#/components/schemas/Nope';
      },
      'valid',
      '#/components/schemas/Nope',
    ],
  ];

  it.concurrent.each(cases)('fails on %s', async (_case, edit, check, message) => {
    const results = await checkContract(writeEdited(edit), released);
    const failed = results.filter((result) => result.problems.length > 0);
    expect(failed.map((result) => result.name.split(' ')[0])).toContain(check === 'breaking' ? 'no' : check);
    expect(formatResults(results)).toContain(message);
  });

  // Links came in 1.3.0: against the newest release (which has them), removing or re-pointing one is a break.
  it.concurrent.each([
    [
      "removing createPlant's link to deletePlant",
      (d: Doc) => delete d.paths['/plants'].post.responses['200'].links.DeletePlant,
      'POST /plants (createPlant): response 200 link DeletePlant removed',
    ],
    [
      "feeding createPlant's link another value",
      (d: Doc) => {
        d.paths['/plants'].post.responses['200'].links.DeletePlant.parameters.id = '$request.body#/name';
      },
      'POST /plants (createPlant): response 200 link DeletePlant: parameter id changed from $request.body#/id to $request.body#/name',
    ],
    [
      "pointing createPlant's GetPlants link elsewhere",
      (d: Doc) => {
        d.paths['/plants'].post.responses['200'].links.GetPlants.operationId = 'deletePlant';
      },
      'POST /plants (createPlant): response 200 link GetPlants: target changed from getPlants to deletePlant',
    ],
  ])('fails on %s against the newest release', async (_case, edit, message) => {
    const results = await checkContract(writeEdited(edit), join(root, 'contract-releases', newest as string));
    expect(formatResults(results)).toContain(`FAIL no breaking changes against`);
    expect(formatResults(results)).toContain(message);
  });

  it('fails every check on a document that is not YAML', async () => {
    const path = join(dir, 'not-yaml.yaml');
    writeFileSync(path, 'openapi: 3.1.0\n  info: [\n');
    const results = await checkContract(path, released);
    expect(results.every((result) => result.problems.length > 0)).toBe(true);
  });

  it('passes a purely additive change: a new optional query parameter and a new optional response field', async () => {
    const path = writeEdited((d) => {
      d.paths['/plants'].get.parameters.push({
        name: 'tagged',
        in: 'query',
        description: 'Only plants with this tag.',
        schema: { type: 'string', minLength: 1, maxLength: 100 },
      });
      d.components.schemas.Error.properties.requestId = { description: 'Id of the request.', type: 'string' };
      d.components.schemas.Plant.properties.colour = { description: 'Colour of the flowers.', type: 'string' };
    });
    const results = await checkContract(path, released);
    expect(formatResults(results)).not.toContain('FAIL');
  });
});

async function breaks(edit: (document: Doc) => void): Promise<string[]> {
  const next = original();
  edit(next);
  const [a, b] = await Promise.all([SwaggerParser.dereference(original()), SwaggerParser.dereference(next)]);
  return findBreakingChanges(a, b);
}

// A bare document with one operation whose query parameter, body and response schemas each case sets.
function operationDoc(parts: { param?: object; body?: object; response?: object; security?: object[] }): object {
  return {
    paths: {
      '/things': {
        post: {
          operationId: 'makeThing',
          parameters: parts.param ? [{ name: 'p', in: 'query', schema: parts.param }] : [],
          requestBody: { content: { 'application/json': { schema: parts.body ?? {} } } },
          responses: {
            '200': { description: 'ok', content: { 'application/json': { schema: parts.response ?? {} } } },
          },
          ...(parts.security ? { security: parts.security } : {}),
        },
      },
    },
  };
}

describe('findBreakingChanges', () => {
  it('finds nothing between the contract and itself', async () => {
    expect(await breaks(() => {})).toEqual([]);
  });

  it('allows loosening: a higher maximum, a lower minimum, an optional request field, a new success response', async () => {
    const found = await breaks((d) => {
      const limit = d.paths['/plants'].get.parameters[0].schema;
      limit.maximum = 5000;
      limit.minimum = 0;
      d.components.schemas.NewPlant.allOf[1].required = [];
      d.paths['/plants'].post.responses['201'] = d.paths['/plants'].post.responses['200'];
      d.components.schemas.Plant.properties.name.maxLength = 400;
    });
    expect(found).toEqual([]);
  });

  it('ignores a renamed path parameter: the route is the same', async () => {
    const found = await breaks((d) => {
      const item = d.paths['/plants/{id}'];
      item.delete.parameters[0].name = 'plantId';
      delete d.paths['/plants/{id}'];
      d.paths['/plants/{plantId}'] = item;
    });
    expect(found).toEqual([]);
  });

  it.each([
    [
      'a removed operation',
      (d: Doc) => delete d.paths['/plants'].post,
      'POST /plants (createPlant): operation removed',
    ],
    [
      'a raised minimum of limit',
      (d: Doc) => {
        d.paths['/plants'].get.parameters[0].schema.minimum = 10;
      },
      'GET /plants (getPlants): query parameter "limit": minimum tightened from 1 to 10',
    ],
    [
      'an enum added to cursor',
      (d: Doc) => {
        d.paths['/plants'].get.parameters[1].schema.enum = ['a', 'b'];
      },
      'GET /plants (getPlants): query parameter "cursor": now restricted to ["a","b"]',
    ],
    [
      'a shorter maxLength of cursor',
      (d: Doc) => {
        d.paths['/plants'].get.parameters[1].schema.maxLength = 32;
      },
      'GET /plants (getPlants): query parameter "cursor": maxLength tightened from 64 to 32',
    ],
    [
      'an optional parameter made required',
      (d: Doc) => {
        d.paths['/plants'].get.parameters[1].required = true;
      },
      'GET /plants (getPlants): query parameter "cursor" is newly required',
    ],
    [
      'a removed parameter',
      (d: Doc) => d.paths['/plants'].get.parameters.splice(1, 1),
      'GET /plants (getPlants): query parameter "cursor" removed',
    ],
    [
      'a shorter maxLength of a request field reached through allOf',
      (d: Doc) => {
        d.components.schemas.Plant.properties.name.maxLength = 10;
      },
      'POST /plants (createPlant): request body.name: maxLength tightened from 200 to 10',
    ],
    [
      'a newly required request field',
      (d: Doc) => {
        d.components.schemas.Plant.required = ['name', 'tag'];
      },
      'POST /plants (createPlant): request body: property "tag" is newly required',
    ],
    [
      'a request field whose type changed',
      (d: Doc) => {
        d.components.schemas.NewPlant.allOf[1].properties.id = { type: 'string' };
      },
      'POST /plants (createPlant): request body.id: type changed from integer to string',
    ],
    [
      'a removed request field',
      (d: Doc) => delete d.components.schemas.Plant.properties.tag,
      'POST /plants (createPlant): request body: property "tag" removed',
    ],
    [
      'a response field that may now be null',
      (d: Doc) => {
        d.components.schemas.Plant.properties.name.type = ['string', 'null'];
      },
      'GET /plants (getPlants): response 200[].name: type changed from string to null|string',
    ],
    [
      'a removed success response',
      (d: Doc) => {
        const responses = d.paths['/plants/{id}'].delete.responses;
        responses['200'] = responses['204'];
        delete responses['204'];
      },
      'DELETE /plants/{id} (deletePlant): success response 204 removed',
    ],
    [
      'a removed default response',
      (d: Doc) => delete d.paths['/plants'].get.responses.default,
      'GET /plants (getPlants): default response removed',
    ],
    [
      'a removed response header',
      (d: Doc) => delete d.paths['/plants'].get.responses['200'].headers,
      'GET /plants (getPlants): response 200 header Link removed',
    ],
    [
      'a path parameter whose type changed',
      (d: Doc) => {
        d.paths['/plants/{id}'].delete.parameters[0].schema = { type: 'string' };
      },
      'DELETE /plants/{id} (deletePlant): path parameter "id": type changed from integer to string',
    ],
    [
      'a security scheme replaced by another',
      (d: Doc) => {
        d.components.securitySchemes.apiKey = { type: 'apiKey', in: 'header', name: 'X-Key' };
        d.security = [{ apiKey: [] }];
      },
      'GET /plants (getPlants): security tightened: a caller with bearerAuth now needs apiKey',
    ],
    [
      'a second scheme required on top of the first',
      (d: Doc) => {
        d.components.securitySchemes.apiKey = { type: 'apiKey', in: 'header', name: 'X-Key' };
        d.paths['/plants'].post.security = [{ bearerAuth: [], apiKey: [] }];
      },
      'POST /plants (createPlant): security tightened: a caller with bearerAuth now needs bearerAuth + apiKey',
    ],
    [
      'a changed x-required-scope',
      (d: Doc) => {
        d.paths['/plants'].get['x-required-scope'] = 'write';
      },
      'GET /plants (getPlants): required scope changed from read to write',
    ],
  ])('reports %s', async (_case, edit, message) => {
    expect(await breaks(edit)).toContain(message);
  });

  it('lets a new alternative security requirement through', async () => {
    const found = await breaks((d) => {
      d.components.securitySchemes.apiKey = { type: 'apiKey', in: 'header', name: 'X-Key' };
      d.security = [{ bearerAuth: [] }, { apiKey: [] }];
    });
    expect(found).toEqual([]);
  });

  it('reports authentication added to an anonymous operation, and scopes added to a requirement', () => {
    const open = operationDoc({ security: [] });
    expect(findBreakingChanges(open, operationDoc({ security: [{ oauth: ['read'] }] }))).toEqual([
      'POST /things (makeThing): security tightened: a caller with anonymous now needs oauth [read]',
    ]);
    const read = operationDoc({ security: [{ oauth: ['read'] }] });
    expect(findBreakingChanges(read, operationDoc({ security: [{ oauth: ['read', 'admin'] }] }))).toHaveLength(1);
    expect(findBreakingChanges(read, operationDoc({ security: [{ oauth: [] }] }))).toEqual([]);
  });

  it('reports an allowed enum value removed from a request, not one added', () => {
    const base = operationDoc({ body: { type: 'object', properties: { size: { type: 'string', enum: ['s', 'm'] } } } });
    const narrower = operationDoc({ body: { type: 'object', properties: { size: { type: 'string', enum: ['s'] } } } });
    const wider = operationDoc({
      body: { type: 'object', properties: { size: { type: 'string', enum: ['s', 'm', 'l'] } } },
    });
    expect(findBreakingChanges(base, narrower)).toEqual([
      'POST /things (makeThing): request body.size: no longer accepts "m"',
    ]);
    expect(findBreakingChanges(base, wider)).toEqual([]);
  });

  it('walks array items and nested allOf in requests and responses', () => {
    const item = (maxLength: number) => ({
      allOf: [{ type: 'object', properties: { n: { type: 'string', maxLength } } }],
    });
    const base = operationDoc({
      body: { type: 'array', items: item(10) },
      response: { type: 'array', items: item(10) },
    });
    const next = operationDoc({
      body: { type: 'array', items: item(5) },
      response: { type: 'array', items: { type: 'object' } },
    });
    expect(findBreakingChanges(base, next)).toEqual([
      'POST /things (makeThing): request body[].n: maxLength tightened from 10 to 5',
      'POST /things (makeThing): response 200[]: property "n" removed',
    ]);
  });

  it('treats widening as safe in requests and breaking in responses', () => {
    const base = operationDoc({
      param: { type: 'integer', format: 'int32' },
      response: { type: 'integer', format: 'int32' },
    });
    const next = operationDoc({ param: { type: 'number', format: 'int64' }, response: { type: 'number' } });
    expect(findBreakingChanges(base, next)).toEqual([
      'POST /things (makeThing): response 200: type changed from integer to number',
    ]);
  });

  it('reports tighter exclusive bounds, multipleOf, a new pattern and refused extra fields', () => {
    const base = operationDoc({ param: { type: 'number', minimum: 0 }, body: { type: 'object', properties: {} } });
    const next = operationDoc({
      param: { type: 'number', exclusiveMinimum: 0, multipleOf: 5, pattern: '^x' },
      body: { type: 'object', properties: {}, additionalProperties: false },
    });
    expect(findBreakingChanges(base, next)).toEqual([
      'POST /things (makeThing): query parameter "p": minimum tightened from 0 to exclusive 0',
      'POST /things (makeThing): query parameter "p": multipleOf tightened from none to 5',
      'POST /things (makeThing): query parameter "p": pattern changed from none to ^x',
      'POST /things (makeThing): request body: additionalProperties is now false (extra fields refused)',
    ]);
  });

  it('terminates on circular schemas', () => {
    const tree = (): Record<string, unknown> => {
      const node: Record<string, unknown> = { type: 'object', properties: {} };
      (node.properties as Record<string, unknown>).children = { type: 'array', items: node };
      return node;
    };
    const changed = tree();
    (changed.properties as Record<string, unknown>).name = { type: 'string' };
    (changed as { required?: string[] }).required = ['name'];
    expect(findBreakingChanges(operationDoc({ body: tree() }), operationDoc({ body: changed }))).toEqual([
      'POST /things (makeThing): request body: property "name" is newly required',
    ]);
  });
});
