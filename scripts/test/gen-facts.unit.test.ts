// The contract's runtime facts follow openapi.yaml: a bound tightened in the document changes the generated table
// and limits, and what reads them (the request rules every side runs, the SDK's limits) follows without a copy.
import {
  BODY_LIMIT_BYTES,
  checkBody,
  checkParameters,
  LIMITS,
  LINKS,
  OPERATIONS,
  type OperationFacts,
} from '@plant-store/contract';
import { readOpenApiDocument } from '@plant-store/contract/document';
import { PLANT_STORE_LIMITS } from '@plant-store/sdk';
import { describe, expect, it } from 'vitest';
import { generateFacts, linkFacts, operationFacts } from '../gen-facts.js';

// biome-ignore lint/suspicious/noExplicitAny: the parsed YAML is edited by known paths below.
type Yaml = any;

const tightened = (): Yaml => {
  const document: Yaml = structuredClone(readOpenApiDocument().document);
  document.components.schemas.Plant.properties.name.maxLength = 150;
  document.paths['/plants'].get.parameters[0].schema.maximum = 500;
  document['x-body-limit-bytes'] = 8192;
  return document;
};

describe('generated runtime facts', () => {
  it('are what the committed document says', () => {
    expect(operationFacts(readOpenApiDocument().document)).toEqual(OPERATIONS);
    expect(linkFacts(readOpenApiDocument().document)).toEqual(LINKS);
    expect(BODY_LIMIT_BYTES).toBe(readOpenApiDocument().document['x-body-limit-bytes']);
    expect(PLANT_STORE_LIMITS.name.maxLength).toBe(LIMITS.name.maxLength);
    expect(PLANT_STORE_LIMITS.limit).toEqual(LIMITS.limit);
  });

  it('follow a bound tightened in openapi.yaml, and the request rules enforce it', () => {
    const text = generateFacts(tightened());
    expect(text).toContain('export const BODY_LIMIT_BYTES = 8192;');
    const operations = operationFacts(tightened());
    const create = operations.find((operation) => operation.operationId === 'createPlant') as OperationFacts;
    const list = operations.find((operation) => operation.operationId === 'getPlants') as OperationFacts;
    expect(checkBody(create, { id: 1, name: 'x'.repeat(151) })).toEqual({
      message: 'body field "name" must be at most 150 characters long',
      detail: { location: 'body', field: 'name', rule: 'maxLength', limit: 150 },
    });
    expect(checkBody(create, { id: 1, name: 'x'.repeat(150) })).toEqual({ body: { id: 1, name: 'x'.repeat(150) } });
    expect(checkParameters(list, {}, new URLSearchParams('limit=501'))).toEqual({
      message: 'query parameter "limit" must be at most 500',
      detail: { location: 'query', field: 'limit', rule: 'maximum', limit: 500 },
    });
    expect(checkParameters(list, {}, new URLSearchParams(''))).toEqual({ params: {}, query: { limit: 100 } });
  });

  it('carry the links of success answers, and refuse a link that names no operationId', () => {
    expect(LINKS).toContainEqual({
      from: 'createPlant',
      name: 'DeletePlant',
      operationId: 'deletePlant',
      parameters: { id: '$request.body#/id' },
    });
    const document = tightened();
    document.paths['/plants'].post.responses['200'].links.DeletePlant = {
      operationRef: '#/paths/~1plants~1{id}/delete',
    };
    expect(() => linkFacts(document)).toThrow('link DeletePlant must name its operation by operationId');
  });

  it('refuse a document without a body limit', () => {
    const document = tightened();
    delete document['x-body-limit-bytes'];
    expect(() => generateFacts(document)).toThrow('x-body-limit-bytes');
  });
});
