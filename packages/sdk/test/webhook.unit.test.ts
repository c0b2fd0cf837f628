// verifyWebhook against an independent implementation: requests signed by the `standardwebhooks` package are
// accepted (and return the exact NewPlant), and anything tampered with, stale, future-dated or unsigned is refused
// with a typed error. (The other direction, standardwebhooks verifying the service's signatures, is in the server's
// webhook tests.)
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { PlantStoreWebhook, verifyWebhook, WebhookVerificationError } from '../src/index.js';

const secret = `whsec_${Buffer.from('a 32-byte secret for these tests').toString('base64')}`;
const body = '{"id":9223372036854775807,"name":"Fern","tag":"green"}';

function signed(options: { at?: Date; payload?: string; id?: string; with?: string } = {}) {
  const at = options.at ?? new Date();
  const id = options.id ?? 'msg_2Lq8y1yJ9x';
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(options.with ?? secret).sign(id, at, options.payload ?? body),
  };
}

async function refusal(promise: Promise<unknown>) {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(WebhookVerificationError);
  return (error as WebhookVerificationError).reason;
}

describe('verifyWebhook', () => {
  it('accepts what standardwebhooks signs and returns the NewPlant with its exact int64 id', async () => {
    const plant = await verifyWebhook(body, signed(), secret);
    expect(plant).toEqual({ id: 9223372036854775807n, name: 'Fern', tag: 'green' });
    expect(
      await verifyWebhook('{"id":-3,"name":"Ivy"}', signed({ payload: '{"id":-3,"name":"Ivy"}' }), secret),
    ).toEqual({
      id: -3,
      name: 'Ivy',
    });
  });

  it('takes the body as text or bytes, and headers as a Headers object or a plain object of any case', async () => {
    const headers = signed();
    const bytes = new TextEncoder().encode(body);
    expect(await verifyWebhook(bytes, new Headers(headers), secret)).toMatchObject({ name: 'Fern' });
    expect(await verifyWebhook(bytes.buffer, headers, secret)).toMatchObject({ name: 'Fern' });
    const shouting = Object.fromEntries(Object.entries(headers).map(([key, value]) => [key.toUpperCase(), value]));
    expect(await verifyWebhook(body, shouting, secret)).toMatchObject({ name: 'Fern' });
  });

  it('accepts any one matching signature among several (secret rotation)', async () => {
    const other = `whsec_${Buffer.from('another secret, 32 bytes long!!!').toString('base64')}`;
    const headers = signed();
    const both = {
      ...headers,
      'webhook-signature': `${signed({ with: other })['webhook-signature']} ${headers['webhook-signature']}`,
    };
    expect(await verifyWebhook(body, both, secret)).toMatchObject({ name: 'Fern' });
    expect(await verifyWebhook(body, both, other)).toMatchObject({ name: 'Fern' });
  });

  it('refuses a tampered body, another secret, a changed id and unsigned requests', async () => {
    const headers = signed();
    expect(await refusal(verifyWebhook(body.replace('Fern', 'Fake'), headers, secret))).toBe('invalid_signature');
    expect(await refusal(verifyWebhook(body, signed({ with: `whsec_${btoa('x'.repeat(32))}` }), secret))).toBe(
      'invalid_signature',
    );
    expect(await refusal(verifyWebhook(body, { ...headers, 'webhook-id': 'msg_other' }, secret))).toBe(
      'invalid_signature',
    );
    expect(await refusal(verifyWebhook(body, { ...headers, 'webhook-signature': 'v2,abc v1,!!!' }, secret))).toBe(
      'invalid_signature',
    );
    const { 'webhook-signature': _, ...unsigned } = headers;
    expect(await refusal(verifyWebhook(body, unsigned, secret))).toBe('missing_headers');
    expect(await refusal(verifyWebhook(body, headers, 'whsec_'))).toBe('invalid_secret');
  });

  it('refuses timestamps beyond the tolerance either way (5 minutes by default)', async () => {
    const now = Date.now();
    expect(await refusal(verifyWebhook(body, signed({ at: new Date(now - 301_000) }), secret))).toBe(
      'timestamp_too_old',
    );
    expect(await refusal(verifyWebhook(body, signed({ at: new Date(now + 301_000) }), secret))).toBe(
      'timestamp_too_new',
    );
    expect(await verifyWebhook(body, signed({ at: new Date(now - 290_000) }), secret)).toMatchObject({ name: 'Fern' });
    const strict = new PlantStoreWebhook(secret, { toleranceSeconds: 10 });
    expect(await refusal(strict.verify(body, signed({ at: new Date(now - 20_000) })))).toBe('timestamp_too_old');
    expect(await refusal(verifyWebhook(body, { ...signed(), 'webhook-timestamp': '12.5' }, secret))).toBe(
      'invalid_timestamp',
    );
  });

  it('refuses a correctly signed body that is not a NewPlant', async () => {
    for (const payload of [
      '[]',
      'not json',
      '{"id":1.5,"name":"x"}',
      '{"id":1}',
      '{"id":1,"name":"x","owner":"y"}',
      '{"id":99999999999999999999,"name":"x"}',
    ]) {
      expect(await refusal(verifyWebhook(payload, signed({ payload }), secret)), payload).toBe('invalid_payload');
    }
  });
});
