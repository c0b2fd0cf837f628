// The SDK's rows follow openapi.yaml: where each operation sits on the client (`client.<resource>.<name>`, by the
// naming rule or `x-sdk-name`), its argument order and behaviours, and the names the generator refuses.
import { SDK_OPERATIONS } from '@plant-store/contract';
import { readOpenApiDocument } from '@plant-store/contract/document';
import { describe, expect, it } from 'vitest';
import { generateSdkFacts, sdkName, sdkOperationFacts } from '../gen-sdk-facts.js';

// biome-ignore lint/suspicious/noExplicitAny: the parsed YAML is edited by known paths below.
type Yaml = any;

const document = (): Yaml => structuredClone(readOpenApiDocument().document);

/** The contract with getPlant (GET /plants/{id}) added, as a minor release would add it. */
function withGetPlant(): Yaml {
  const edited = document();
  edited.paths['/plants/{id}'].get = {
    operationId: 'getPlant',
    parameters: edited.paths['/plants/{id}'].delete.parameters,
    responses: { '200': { description: 'The plant.' }, '404': { description: 'No such plant.' } },
  };
  return edited;
}

describe('generated SDK rows', () => {
  it('are what the committed document says', () => {
    expect(sdkOperationFacts(document())).toEqual(SDK_OPERATIONS);
    // The SDK's public names since 1.0.0 come out of the rule; operations added since may join them.
    expect(SDK_OPERATIONS.map((row) => `${row.resource}.${row.name}`)).toEqual(
      expect.arrayContaining(['plants.list', 'plants.create', 'plants.delete']),
    );
  });

  it('name an operation by its verb, a get of a collection `list`, unless x-sdk-name says otherwise', () => {
    expect(sdkName('getPlants', 'get', '/plants')).toBe('list');
    expect(sdkName('getPlant', 'get', '/plants/{id}')).toBe('get');
    expect(sdkName('updatePlant', 'put', '/plants/{id}')).toBe('update');
    expect(sdkName('getPlants', 'get', '/plants', 'all')).toBe('all');
    expect(() => sdkName('Plants', 'get', '/plants')).toThrow('lower-case verb');
  });

  it('give a new operation its row: path parameters first, no paging without a Link header', () => {
    const row = sdkOperationFacts(withGetPlant()).find((facts) => facts.operationId === 'getPlant');
    expect(row).toEqual({
      operationId: 'getPlant',
      method: 'GET',
      path: '/plants/{id}',
      resource: 'plants',
      name: 'get',
      pathParams: ['id'],
      query: false,
      body: false,
      idempotencyKey: false,
      paged: false,
    });
    expect(generateSdkFacts(withGetPlant())).toContain('"operationId": "getPlant"');
  });

  it('refuse a name taken on the flat TanStack helpers, and take x-sdk-name instead', () => {
    const clash = withGetPlant();
    clash.paths['/plants/{id}'].get['x-sdk-name'] = 'create';
    expect(() => sdkOperationFacts(clash)).toThrow('the SDK name "create" is taken');
    clash.paths['/plants/{id}'].get['x-sdk-name'] = 'listAll';
    expect(() => sdkOperationFacts(clash)).toThrow('the SDK name "listAll" is taken');
    clash.paths['/plants/{id}'].get['x-sdk-name'] = 'page';
    expect(() => sdkOperationFacts(clash)).toThrow('the SDK name "page" is taken');
    clash.paths['/plants/{id}'].get['x-sdk-name'] = 'read';
    expect(sdkOperationFacts(clash).map((row) => row.name)).toContain('read');
  });

  it('refuse a paged list the SDK cannot page, a second one, and a path without a resource', () => {
    const noCursor = document();
    noCursor.paths['/plants'].get.parameters = noCursor.paths['/plants'].get.parameters.filter(
      (parameter: Yaml) => parameter.name !== 'cursor',
    );
    expect(() => sdkOperationFacts(noCursor)).toThrow('a Link-paged list takes `limit` and `cursor` only');
    const twoLists = document();
    twoLists.paths['/gardens'] = { get: { ...twoLists.paths['/plants'].get, operationId: 'getGardens' } };
    expect(() => sdkOperationFacts(twoLists)).toThrow('one Link-paged list');
    const root = document();
    root.paths['/'] = { get: { operationId: 'getRoot', responses: {} } };
    expect(() => sdkOperationFacts(root)).toThrow('gives no resource name');
  });
});
