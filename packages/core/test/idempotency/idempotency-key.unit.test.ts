// The Idempotency-Key header as the testing kit checks it: the schema the core states is the one openapi.yaml
// declares (which the server validates from), and a malformed key is told by the rule it breaks, in the words of the
// service's validation.
import { readOpenApiDocument } from '@plant-store/contract/document';
import { describe, expect, it } from 'vitest';
import {
  IDEMPOTENCY_KEY_FACTS,
  keepRefusal,
  MAX_KEPT_REFUSAL_BYTES,
  malformedKeyError,
} from '../../src/idempotency/idempotency-key.js';
import { openMemoryPlants } from '../../src/store/memory-plants.js';

interface Parameter {
  name: string;
  in: string;
  schema: Record<string, unknown>;
}

describe('Idempotency-Key', () => {
  it('has the schema openapi.yaml declares for the header', () => {
    const { document } = readOpenApiDocument();
    const paths = document.paths as Record<string, Record<string, { parameters?: Parameter[] }>>;
    const declared = Object.values(paths)
      .flatMap((item) => Object.values(item).flatMap((operation) => operation.parameters ?? []))
      .filter((parameter) => parameter.in === 'header' && parameter.name.toLowerCase() === IDEMPOTENCY_KEY_FACTS.name);
    expect(declared.length).toBeGreaterThan(0);
    const { name: _name, ...facts } = IDEMPOTENCY_KEY_FACTS;
    for (const parameter of declared) expect(parameter.schema).toEqual(facts);
  });

  it('refuses a malformed key by the rule it breaks, and accepts a well-formed one', () => {
    expect(malformedKeyError('a b')?.message).toBe(
      'header "idempotency-key" must be visible ASCII characters, without spaces',
    );
    expect(malformedKeyError('k'.repeat(256))?.message).toBe(
      'header "idempotency-key" must be at most 255 characters long',
    );
    expect(malformedKeyError('')?.message).toBe('header "idempotency-key" must be at least 1 character long');
    expect(malformedKeyError('k'.repeat(255))).toBeUndefined();
    expect(malformedKeyError('3f2a-~!')).toBeUndefined();
  });

  it('keeps a refusal of up to 2 KB under its key, and answers a larger one without keeping it', async () => {
    const store = openMemoryPlants();
    const refusal = (bytes: number) => {
      const json = JSON.stringify({ error: 400, message: '' });
      return { status: 400, json: JSON.stringify({ error: 400, message: 'm'.repeat(bytes - json.length) }) };
    };
    const small = refusal(MAX_KEPT_REFUSAL_BYTES);
    expect(await keepRefusal(store, 'alice', 'small', 'f', small)).toEqual({ ...small, headers: {} });
    expect(await keepRefusal(store, 'alice', 'small', 'f', small)).toEqual({
      ...small,
      headers: { 'idempotent-replayed': 'true' },
    });
    const large = refusal(MAX_KEPT_REFUSAL_BYTES + 1);
    expect(await keepRefusal(store, 'alice', 'large', 'f', large)).toEqual({ ...large, headers: {} });
    // Nothing was kept: the key is unused.
    expect(
      await store.idempotency.remember('alice', 'large', { fingerprint: 'g', status: 200, body: '{}' }, Date.now()),
    ).toBeUndefined();
  });
});
