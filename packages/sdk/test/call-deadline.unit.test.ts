// The call's deadline and the caller's signal cover the whole answer, body included: an injected fetch answers with
// its status and headers at once and a body stream that never ends, on every method; a body cut short is a lost answer.
import { json, scriptedFetch } from '@plant-store/test-kit/scripted-fetch';
import { outcomeWithin } from '@plant-store/test-kit/wait';
import { describe, expect, it } from 'vitest';
import {
  createPlantStoreClient,
  PlantStoreAbortError,
  type PlantStoreClient,
  PlantStoreConnectionError,
  PlantStoreTimeoutError,
} from '../src/index.js';

/** An answer whose headers are there and whose body sends its first bytes, then nothing more, ever. */
function stalled(status: number, headers: Record<string, string> = {}): Response {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(status === 200 ? '[{"name":' : '{"error":'));
    },
  });
  return new Response(body, { status, headers: { 'content-type': 'application/json', ...headers } });
}

function client(fetch: (request: Request) => Promise<Response>): PlantStoreClient {
  return createPlantStoreClient({ baseUrl: 'http://plants.test', token: 't', fetch, retry: { maxRetries: 0 } });
}

/** Every method, each answered with a body that stalls (a delete's 404 Error body; a 204 has none). */
const calls: Array<[string, () => Response[], (api: PlantStoreClient, signal?: AbortSignal) => Promise<unknown>]> = [
  ['list', () => [stalled(200)], (api, signal) => api.plants.list({}, { timeoutMs: 100, signal })],
  ['listPage', () => [stalled(200)], (api, signal) => api.plants.listPage({}, { timeoutMs: 100, signal })],
  [
    'create',
    () => [stalled(200)],
    (api, signal) => api.plants.create({ id: 1, name: 'a' }, { timeoutMs: 100, signal }),
  ],
  ['delete', () => [stalled(404)], (api, signal) => api.plants.delete(1, { timeoutMs: 100, signal })],
  [
    'listAll (its second page stalls)',
    () => [json(200, [{ name: 'a' }], { link: '</plants?cursor=c1>; rel="next"' }), stalled(200)],
    async (api, signal) => {
      const names: string[] = [];
      for await (const plant of api.plants.listAll({}, { timeoutMs: 100, signal })) names.push(plant.name);
      return names;
    },
  ],
];

describe('a body that stalls after the headers', () => {
  it.each(calls)('%s rejects with PlantStoreTimeoutError at the deadline', async (_name, answers, call) => {
    const { fetch, requests } = scriptedFetch(...answers());
    const started = performance.now();
    const error = await outcomeWithin(call(client(fetch)), 3_000);
    expect(error).toBeInstanceOf(PlantStoreTimeoutError);
    expect((error as Error).message).toBe('no answer within 100 ms');
    // At the deadline, not before it; the upper bound only says it did not wait for a body that never comes.
    expect(performance.now() - started).toBeGreaterThanOrEqual(95);
    expect(requests).toHaveLength(answers().length);
  });

  it.each(calls)('%s rejects with PlantStoreAbortError when the caller aborts', async (_name, answers, call) => {
    const { fetch } = scriptedFetch(...answers());
    const controller = new AbortController();
    // Aborted once the stalled answer's headers are in: the fetch has resolved, only its body is pending.
    const aborting = async (request: Request) => {
      const response = await fetch(request);
      if (response.headers.has('link')) return response;
      setTimeout(() => controller.abort(new Error('user left')), 10);
      return response;
    };
    const api = createPlantStoreClient({
      baseUrl: 'http://plants.test',
      token: 't',
      fetch: aborting,
      timeoutMs: 60_000,
    });
    const error = await outcomeWithin(call(api, controller.signal), 3_000);
    expect(error).toBeInstanceOf(PlantStoreAbortError);
    expect(error).toMatchObject({ message: 'user left', cause: new Error('user left') });
  });

  it('a body that arrives in pieces within the deadline is read whole', async () => {
    const encoder = new TextEncoder();
    const slow = new ReadableStream<Uint8Array>({
      async start(controller) {
        for (const piece of ['[{"name"', ':"a"},', '{"name":"b"}]']) {
          controller.enqueue(encoder.encode(piece));
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
        controller.close();
      },
    });
    const { fetch } = scriptedFetch(
      new Response(slow, { status: 200, headers: { 'content-type': 'application/json' } }),
    );
    expect(await client(fetch).plants.list({}, { timeoutMs: 5_000 })).toEqual([{ name: 'a' }, { name: 'b' }]);
  });
});

describe('a body cut short after the headers', () => {
  const cut = () =>
    new Response(
      new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode('[{"name":'));
          controller.error(new TypeError('terminated'));
        },
      }),
      { status: 200, headers: { 'content-type': 'application/json' } },
    );

  it('is a PlantStoreConnectionError, retried for a list like any lost answer', async () => {
    const { fetch, requests } = scriptedFetch(cut(), json(200, [{ name: 'whole' }]));
    const api = createPlantStoreClient({ baseUrl: 'http://plants.test', token: 't', fetch, sleep: async () => {} });
    expect(await api.plants.list()).toEqual([{ name: 'whole' }]);
    expect(requests).toHaveLength(2);
  });

  it('is a PlantStoreConnectionError naming the cause, for a create sent without a key (not retried)', async () => {
    const { fetch, requests } = scriptedFetch(cut());
    const error = await createPlantStoreClient({ baseUrl: 'http://plants.test', token: 't', fetch })
      .plants.create({ id: 1, name: 'a' }, { idempotencyKey: null })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PlantStoreConnectionError);
    expect((error as Error).message).toBe('could not reach the Plant Store service: terminated');
    expect(requests).toHaveLength(1);
  });
});
