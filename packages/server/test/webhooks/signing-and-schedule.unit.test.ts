// The pieces of delivery that need no database: Standard Webhooks signatures (checked by the independent
// `standardwebhooks` package), the retry schedule and Retry-After, what each answer means, and the address rules.
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import type { ClaimedDelivery } from '../../src/store/store.js';
import { isPublicAddress, publicOnlyLookup } from '../../src/webhooks/address-guard.js';
import { outcomeOf } from '../../src/webhooks/delivery-worker.js';
import { nextAttemptAt, retryAfterMs, retryDelayMs } from '../../src/webhooks/retry-schedule.js';
import { refusedTarget } from '../../src/webhooks/send.js';
import { generateSecret, signatureHeader } from '../../src/webhooks/signature.js';

const config = loadConfig({}).webhooks;

describe('signatures', () => {
  it('are verified by the standardwebhooks package, with each secret during a rotation', () => {
    const [current, previous] = [generateSecret(), generateSecret()];
    expect(current).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const body = '{"id":9223372036854775807,"name":"Fern","tag":"green"}';
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = {
      'webhook-id': 'msg_1',
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signatureHeader([current, previous], 'msg_1', timestamp, body),
    };
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(new Webhook(current).verify(body, headers)).toMatchObject({ name: 'Fern' });
    expect(new Webhook(previous).verify(body, headers)).toMatchObject({ name: 'Fern' });
    expect(() => new Webhook(generateSecret()).verify(body, headers)).toThrow();
    expect(() => new Webhook(current).verify(`${body} `, headers)).toThrow();
  });

  it('match what standardwebhooks signs for the same message', () => {
    const secret = generateSecret();
    const at = new Date(1_700_000_000_000);
    const body = '{"id":1,"name":"Fern"}';
    expect(signatureHeader([secret], 'msg_x', 1_700_000_000, body)).toBe(new Webhook(secret).sign('msg_x', at, body));
  });
});

describe('retry schedule', () => {
  it('follows Svix: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, then every 10 h, within +-20% jitter', () => {
    const seconds = [5, 300, 1_800, 7_200, 18_000, 36_000, 36_000, 36_000];
    seconds.forEach((expected, index) => {
      expect(retryDelayMs(index + 1, 5_000, () => 0)).toBe(expected * 800);
      expect(retryDelayMs(index + 1, 5_000, () => 0.999_999)).toBeLessThanOrEqual(expected * 1_200);
      const jittered = retryDelayMs(index + 1, 5_000);
      expect(jittered).toBeGreaterThanOrEqual(expected * 800);
      expect(jittered).toBeLessThanOrEqual(expected * 1_200);
    });
  });

  it('reads Retry-After as seconds or an HTTP date, and ignores nonsense', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterMs('120', now)).toBe(120_000);
    expect(retryAfterMs('Thu, 01 Jan 2026 00:01:00 GMT', now)).toBe(60_000);
    expect(retryAfterMs('soon', now)).toBeUndefined();
    expect(retryAfterMs(undefined, now)).toBeUndefined();
  });

  it('waits at least Retry-After, and gives up when the next try would fall beyond the retry period', () => {
    const base = { createdAt: 0, now: 1_000, firstMs: 100, periodMs: 60_000 };
    expect(nextAttemptAt({ ...base, failures: 1, retryAfterMs: 30_000 })).toBe(31_000);
    expect(nextAttemptAt({ ...base, failures: 1, retryAfterMs: undefined })).toBeLessThanOrEqual(1_120);
    expect(nextAttemptAt({ ...base, failures: 1, retryAfterMs: 59_500 })).toBeUndefined();
    expect(nextAttemptAt({ ...base, failures: 4, retryAfterMs: undefined })).toBeUndefined(); // 144 s +-20%
  });
});

describe('what an answer means', () => {
  const delivery: ClaimedDelivery = {
    id: 1,
    eventId: 'msg_1',
    payload: '{}',
    attempts: 0,
    createdAt: Date.now(),
    subscription: { id: 'wh_1', url: 'https://example.com', secrets: [] },
  };
  const answered = (status: number, retryAfter?: string) =>
    outcomeOf({ kind: 'answered', status, retryAfter }, delivery, config, Date.now());

  it('any 2xx is delivered; 410 fails and disables the subscription', () => {
    for (const status of [200, 201, 204, 299]) expect(answered(status)).toEqual({ kind: 'delivered', status });
    expect(answered(410)).toMatchObject({ kind: 'failed', disableSubscription: expect.stringContaining('410') });
  });

  it('408, 429, 5xx, timeouts and connection errors are retried; other answers and refused addresses fail', () => {
    for (const status of [408, 429, 500, 502, 503, 504])
      expect(answered(status)).toMatchObject({ kind: 'retry', status });
    expect(
      outcomeOf({ kind: 'error', error: 'ECONNREFUSED', retryable: true }, delivery, config, Date.now()),
    ).toMatchObject({
      kind: 'retry',
      status: null,
    });
    for (const status of [301, 302, 400, 401, 404, 422])
      expect(answered(status)).toMatchObject({ kind: 'failed', status });
    expect(answered(302)).toMatchObject({ error: expect.stringContaining('redirects are not followed') });
    expect(
      outcomeOf({ kind: 'error', error: 'private', retryable: false }, delivery, config, Date.now()),
    ).toMatchObject({
      kind: 'failed',
    });
  });

  it('a 503 with Retry-After waits that long', () => {
    const now = Date.now();
    const outcome = outcomeOf({ kind: 'answered', status: 503, retryAfter: '3600' }, delivery, config, now);
    expect(outcome).toMatchObject({ kind: 'retry' });
    expect((outcome as { at: number }).at).toBeGreaterThanOrEqual(now + 3_600_000);
  });
});

describe('where webhooks may go', () => {
  it('public unicast addresses only', () => {
    for (const address of ['93.184.215.14', '8.8.8.8', '2606:4700:4700::1111'])
      expect(isPublicAddress(address)).toBe(true);
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '255.255.255.255',
      '::1',
      '::',
      'fe80::1',
      'fd00::1',
      '::ffff:127.0.0.1',
      '::ffff:a00:1',
      '64:ff9b::7f00:1',
      'not-an-ip',
    ]) {
      expect(isPublicAddress(address), address).toBe(false);
    }
  });

  it('https only, and no private IP literals, unless WEBHOOK_ALLOW_PRIVATE', () => {
    expect(refusedTarget(new URL('https://example.com/hook'), false)).toBeUndefined();
    expect(refusedTarget(new URL('http://example.com/hook'), false)).toMatch(/only https/);
    expect(refusedTarget(new URL('https://127.0.0.1/hook'), false)).toMatch(/not a public address/);
    expect(refusedTarget(new URL('https://[::1]/hook'), false)).toMatch(/not a public address/);
    expect(refusedTarget(new URL('https://[::ffff:169.254.169.254]/'), false)).toMatch(/not a public address/);
    expect(refusedTarget(new URL('ftp://example.com/'), true)).toMatch(/cannot receive/);
    expect(refusedTarget(new URL('http://127.0.0.1:9/hook'), true)).toBeUndefined();
  });

  it('a host name is checked on the addresses DNS gives, at connection time', async () => {
    const error = await new Promise<Error | null>((resolve) =>
      publicOnlyLookup('localhost', { all: true }, (failure) => resolve(failure)),
    );
    expect(error?.message).toMatch(/not a public address/);
  });
});

describe('configuration', () => {
  it('has the documented defaults and refuses a poll interval beyond 500 ms', () => {
    expect(config).toEqual({
      allowPrivate: false,
      timeoutMs: 10_000,
      concurrency: 64,
      perSubscription: 4,
      circuitFailures: 5,
      circuitOpenMs: 30_000,
      pollMs: 250,
      retryFirstMs: 5_000,
      retryPeriodMs: 86_400_000,
      retentionMs: 604_800_000,
    });
    expect(() => loadConfig({ WEBHOOK_POLL_MS: '1000' })).toThrow(/WEBHOOK_POLL_MS/);
    expect(() => loadConfig({ WEBHOOK_ALLOW_PRIVATE: 'maybe' })).toThrow(/WEBHOOK_ALLOW_PRIVATE/);
  });
});
