// READ_ONLY=true (every engine): creates and deletes, keyed or not, answer 503 in the Error shape with Retry-After;
// lists and conditional GETs go on, /readyz and the plant_store_read_only gauge say so, and webhook deliveries queued
// before the window still go out from a read-only server on the same database.
import { verifyWebhook } from '@plant-store/sdk';
import {
  createTestApp,
  createTestDatabase,
  startTestServer,
  TEST_DATABASE,
  type TestApp,
  waitFor,
} from '@plant-store/test-kit';
import { sampleValue } from '@plant-store/test-kit/prometheus-samples';
import { startWebhookReceiver } from '@plant-store/test-kit/webhook-receiver';
import { afterAll, describe, expect, it } from 'vitest';
import { addSubscription } from '../../src/webhooks/subscriptions.js';

let readOnly: TestApp | undefined;
afterAll(async () => {
  await readOnly?.close();
});

describe('READ_ONLY=true', () => {
  it('answers creates and deletes 503 with Retry-After, and still lists', async () => {
    readOnly = await createTestApp({ env: { READ_ONLY: 'true', RATE_LIMIT_MAX: '0' }, metrics: true });
    const own = await readOnly.token('reader');
    const writes = [
      { method: 'POST' as const, url: '/plants', payload: '{"id":2,"name":"Moss"}' },
      { method: 'POST' as const, url: '/plants', payload: '{"id":3,"name":"Ivy"}', key: 'k-1' },
      { method: 'DELETE' as const, url: '/plants/1' },
    ];
    for (const { key, ...write } of writes) {
      const answer = await readOnly.app.inject({
        ...write,
        headers: {
          authorization: `Bearer ${own}`,
          'content-type': 'application/json',
          ...(key ? { 'idempotency-key': key } : {}),
        },
      });
      expect(answer.statusCode).toBe(503);
      expect(answer.headers['retry-after']).toBe('5');
      expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(answer.json()).toEqual({ error: 503, message: expect.stringContaining('read-only') });
    }
    const list = await readOnly.app.inject({ url: '/plants', headers: { authorization: `Bearer ${own}` } });
    expect(list.statusCode).toBe(200);
    expect(list.body).toBe('[]');
    const again = await readOnly.app.inject({
      url: '/plants',
      headers: { authorization: `Bearer ${own}`, 'if-none-match': String(list.headers.etag) },
    });
    expect(again.statusCode).toBe(304);
    expect((await readOnly.app.inject({ url: '/readyz' })).json()).toEqual({
      status: 'read-only',
      database: readOnly.store.kind,
      writes: 'refused: READ_ONLY=true',
    });
    const metrics = await readOnly.metrics!.registry.metrics();
    expect(sampleValue(metrics, 'plant_store_read_only')).toBe(1);
  });

  it('says 0 on the gauge and answers readiness as before without it', async () => {
    const open = await createTestApp({ metrics: true });
    try {
      expect(sampleValue(await open.metrics!.registry.metrics(), 'plant_store_read_only')).toBe(0);
      expect((await open.app.inject({ url: '/readyz' })).json()).toEqual({ status: 'ok', database: open.store.kind });
    } finally {
      await open.close();
    }
  });

  // Two servers on one database: the memory engine is a store per app.
  it.skipIf(TEST_DATABASE === 'memory')(
    'lists what was written before and delivers webhooks queued before the window',
    async () => {
      const receiver = await startWebhookReceiver();
      const database = createTestDatabase(TEST_DATABASE);
      const shared = await createTestApp({ env: { RATE_LIMIT_MAX: '0', DATABASE_URL: database.url } });
      try {
        const { secret } = await addSubscription(shared.store.webhooks, {
          url: receiver.url,
          subject: null,
          allowPrivate: true,
        });
        const writer = await shared.token('writer');
        const created = await shared.app.inject({
          method: 'POST',
          url: '/plants',
          headers: { authorization: `Bearer ${writer}`, 'content-type': 'application/json' },
          payload: '{"id":7,"name":"Queued"}',
        });
        expect(created.statusCode).toBe(200);
        const server = await startTestServer({
          env: { READ_ONLY: 'true', DATABASE_URL: database.url, WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_POLL_MS: '20' },
        });
        try {
          const list = await server.app.inject({ url: '/plants', headers: { authorization: `Bearer ${writer}` } });
          expect(list.json()).toEqual([{ name: 'Queued' }]);
          await waitFor('the queued delivery', () => receiver.received.length === 1);
          const [request] = receiver.received;
          expect(await verifyWebhook(request!.body, request!.headers as Record<string, string>, secret)).toEqual({
            id: 7,
            name: 'Queued',
          });
        } finally {
          await server.close();
        }
      } finally {
        await shared.close();
        await receiver.close();
        await database.drop();
      }
    },
  );
});
