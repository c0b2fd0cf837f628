// What a UI needs from the SDK's errors and helpers: one root class, the parsed body, the contract's limits (checked
// against openapi.yaml), parsePlantId, listAll's limit, and a CORS-aware connection error in browsers.
import { readOpenApiDocument } from '@plant-store/contract/document';
import { json, scriptedFetch } from '@plant-store/test-kit/scripted-fetch';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  BadRequestError,
  createPlantStoreClient,
  PLANT_STORE_LIMITS,
  PLANT_TEXT_PATTERN,
  PlantStoreConnectionError,
  PlantStoreError,
  type PlantStoreErrorInit,
  PlantStoreSdkError,
  PlantStoreTimeoutError,
  parsePlantId,
} from '../src/index.js';

const noSleep = async () => {};

describe('one root class', () => {
  it('is behind every failure the SDK throws', async () => {
    const { fetch } = scriptedFetch(
      json(400, { error: 400, message: 'body field "name" must be at most 200 characters long' }),
      new TypeError('fetch failed'),
      () => new Promise<Response>(() => {}),
    );
    const api = createPlantStoreClient({
      baseUrl: 'http://plants.test',
      token: 't',
      fetch,
      timeoutMs: 20,
      retry: { maxRetries: 0 },
      sleep: noSleep,
    });
    const bad = await api.plants.create({ id: 1, name: 'x' }).catch((e: unknown) => e);
    const offline = await api.plants.list().catch((e: unknown) => e);
    const slow = await api.plants.list().catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(BadRequestError);
    expect(offline).toBeInstanceOf(PlantStoreConnectionError);
    expect(slow).toBeInstanceOf(PlantStoreTimeoutError);
    for (const error of [bad, offline, slow]) expect(error).toBeInstanceOf(PlantStoreSdkError);
    expect(bad).toMatchObject({
      body: { error: 400, message: 'body field "name" must be at most 200 characters long' },
    });
  });

  it('builds a PlantStoreError from an exported init, with no body for a non-JSON answer', async () => {
    const init: PlantStoreErrorInit = {
      status: 502,
      code: undefined,
      message: 'HTTP 502 Bad Gateway',
      requestId: undefined,
      response: new Response('<html>', { status: 502 }),
    };
    expect(new PlantStoreError(init)).toMatchObject({ status: 502, body: undefined, name: 'PlantStoreError' });
    const { fetch } = scriptedFetch(new Response('<html>bad gateway</html>', { status: 502 }));
    const api = createPlantStoreClient({ baseUrl: 'http://plants.test', token: 't', fetch, sleep: noSleep });
    await expect(api.plants.list()).rejects.toMatchObject({ status: 502, body: undefined });
  });
});

describe('the contract’s limits', () => {
  it('match openapi.yaml', () => {
    // biome-ignore lint/suspicious/noExplicitAny: the parsed YAML is walked by known paths below.
    const contract = readOpenApiDocument().document as any;
    const plant = contract.components.schemas.Plant.properties;
    expect(PLANT_STORE_LIMITS.name).toEqual({ minLength: plant.name.minLength, maxLength: plant.name.maxLength });
    expect(PLANT_STORE_LIMITS.tag).toEqual({ minLength: plant.tag.minLength, maxLength: plant.tag.maxLength });
    expect(PLANT_TEXT_PATTERN.source).toBe(plant.name.pattern);
    expect(PLANT_TEXT_PATTERN.source).toBe(plant.tag.pattern);
    const parameters = [
      ...(contract.paths['/plants'].get.parameters ?? []),
      ...Object.values(contract.components.parameters ?? {}),
    ] as { name: string; in: string; schema?: Record<string, unknown>; $ref?: string }[];
    const limit = parameters.find((parameter) => parameter.name === 'limit' && parameter.in === 'query');
    expect(limit?.schema).toMatchObject({
      minimum: PLANT_STORE_LIMITS.limit.minimum,
      maximum: PLANT_STORE_LIMITS.limit.maximum,
      default: PLANT_STORE_LIMITS.limit.default,
    });
    expect(Object.isFrozen(PLANT_STORE_LIMITS.name)).toBe(true);
  });
});

describe('parsePlantId', () => {
  it('reads exact int64 ids from text, a number while safe and a bigint beyond', () => {
    expect(parsePlantId('12')).toBe(12);
    expect(parsePlantId(' -7 ')).toBe(-7);
    expect(parsePlantId('9007199254740991')).toBe(9007199254740991);
    expect(parsePlantId('9007199254740993')).toBe(9007199254740993n);
    expect(parsePlantId('9223372036854775807')).toBe(9223372036854775807n);
    expect(parsePlantId('-9223372036854775808')).toBe(-9223372036854775808n);
  });

  it.each(['', ' ', '1.5', '1e3', '0x10', '012', '+1', 'abc', '9223372036854775808', '-9223372036854775809'])(
    'refuses %j',
    (text) => {
      expect(parsePlantId(text)).toBeUndefined();
    },
  );
});

describe('listAll', () => {
  it('takes limit as well as pageSize', async () => {
    const { fetch, requests } = scriptedFetch(json(200, [{ name: 'a' }]), json(200, []));
    const api = createPlantStoreClient({ baseUrl: 'http://plants.test', token: 't', fetch });
    for await (const _ of api.plants.listAll({ limit: 7 })) void _;
    expect(requests[0]!.url).toBe('http://plants.test/plants?limit=7');
    const both = api.plants.listAll({ limit: 7, pageSize: 8 });
    await expect(both.next()).rejects.toThrow(TypeError);
  });
});

describe('in a browser', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('says CORS is the likely cause of a cross-origin connection error, and does not retry it', async () => {
    vi.stubGlobal('document', {});
    vi.stubGlobal('location', { origin: 'http://app.test' });
    const { fetch, requests } = scriptedFetch(new TypeError('Failed to fetch'), json(200, []));
    const api = createPlantStoreClient({ baseUrl: 'http://plants.test', token: 't', fetch, sleep: noSleep });
    const error = (await api.plants.list().catch((e: unknown) => e)) as PlantStoreConnectionError;
    expect(error).toBeInstanceOf(PlantStoreConnectionError);
    expect(error.message).toContain('CORS');
    expect(error.message).toContain('http://app.test');
    expect(error.cause).toEqual(new TypeError('Failed to fetch'));
    expect(requests).toHaveLength(1);
  });

  it('still retries a same-origin connection error', async () => {
    vi.stubGlobal('document', {});
    vi.stubGlobal('location', { origin: 'http://plants.test' });
    const { fetch, requests } = scriptedFetch(new TypeError('Failed to fetch'), json(200, []));
    const api = createPlantStoreClient({ baseUrl: 'http://plants.test', token: 't', fetch, sleep: noSleep });
    expect(await api.plants.list()).toEqual([]);
    expect(requests).toHaveLength(2);
  });
});
