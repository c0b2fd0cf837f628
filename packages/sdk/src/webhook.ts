// Verifying the service's "new plant added" webhook (Standard Webhooks: https://www.standardwebhooks.com) with Web
// Crypto only, so it runs in browsers, edge runtimes and Node alike: the `v1` HMAC-SHA256 signature compared in
// constant time, the timestamp within a tolerance, and the body read as the contract's NewPlant with an exact id.
import { type NewPlant, toInt64 } from '@plant-store/contract';

/** Why a webhook request was refused. */
export type WebhookVerificationReason =
  | 'missing_headers'
  | 'invalid_secret'
  | 'invalid_timestamp'
  | 'timestamp_too_old'
  | 'timestamp_too_new'
  | 'invalid_signature'
  | 'invalid_payload';

/** Thrown by {@link verifyWebhook} when a request must not be trusted; answer it with 400 (or 401). */
export class WebhookVerificationError extends Error {
  override name = 'WebhookVerificationError';
  constructor(
    readonly reason: WebhookVerificationReason,
    message: string,
  ) {
    super(message);
  }
}

/** The request's headers: a fetch `Headers`, or a plain object such as Node's `req.headers` (any key case). */
export type WebhookHeaderSource = Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

export interface VerifyWebhookOptions {
  /** How far the `webhook-timestamp` may be from now, either way, in seconds (default 300). */
  toleranceSeconds?: number;
  /** The clock, in milliseconds since the epoch (default `Date.now`); for tests. */
  now?: () => number;
}

const SECRET_PREFIX = 'whsec_';
const encoder = new TextEncoder();

function header(headers: WebhookHeaderSource, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  for (const [key, value] of Object.entries(headers as Record<string, string | readonly string[] | undefined>)) {
    if (key.toLowerCase() === name) return typeof value === 'string' ? value : value?.[0];
  }
  return undefined;
}

function fromBase64(text: string): Uint8Array | undefined {
  try {
    return Uint8Array.from(atob(text), (char) => char.charCodeAt(0));
  } catch {
    return undefined;
  }
}

/** Equal bytes, in time that depends only on the length (never on where they differ). */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a[i]! ^ b[i]!;
  return difference === 0;
}

async function importSecret(secret: string): Promise<CryptoKey> {
  const key = fromBase64(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret);
  if (!key || key.length === 0) {
    throw new WebhookVerificationError('invalid_secret', 'the secret is not a whsec_<base64> signing secret');
  }
  return crypto.subtle.importKey('raw', key as Uint8Array<ArrayBuffer>, { name: 'HMAC', hash: 'SHA-256' }, false, [
    'sign',
  ]);
}

// Integer literals beyond 2^53 are read as text first so JSON.parse cannot round them (the id is int64). Not the
// contract's parseJsonExact on purpose: that linear scanner costs about 1 KB gzip, which would take the SDK's main
// entry over its 5 KB budget, and this body is parsed only after its signature verified, so it is the service's own
// small payload, never a stranger's hostile one.
const NUMBER_OR_STRING = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;

function parseNewPlant(body: string): NewPlant {
  const marker = `~int64~${Math.random().toString(36).slice(2)}:`;
  const refuse = (why: string) => new WebhookVerificationError('invalid_payload', `the body is not a NewPlant: ${why}`);
  let value: unknown;
  try {
    const source = body.replace(NUMBER_OR_STRING, (token) =>
      token[0] !== '"' && /^-?\d+$/.test(token) && !Number.isSafeInteger(Number(token)) ? `"${marker}${token}"` : token,
    );
    value = JSON.parse(source, (_key, item: unknown) =>
      typeof item === 'string' && item.startsWith(marker) ? BigInt(item.slice(marker.length)) : item,
    );
  } catch {
    throw refuse('not JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw refuse('not an object');
  const { id, name, tag, ...rest } = value as Record<string, unknown>;
  const exactId = toInt64(id, false);
  if (exactId === undefined) throw refuse('id is not a signed 64-bit integer');
  if (typeof name !== 'string') throw refuse('name is not a string');
  if (tag !== undefined && typeof tag !== 'string') throw refuse('tag is not a string');
  if (Object.keys(rest).length > 0) throw refuse(`unknown field "${Object.keys(rest)[0]}"`);
  return { id: exactId, name, ...(tag === undefined ? {} : { tag }) };
}

/**
 * Verifies a webhook request from the service and returns the plant it announces. `payload` is the raw body exactly
 * as received (verify before parsing: re-serialised JSON does not match the signature), `headers` the request's
 * headers, `secret` the `whsec_...` secret `plant-store webhook add` printed. Throws a {@link WebhookVerificationError}
 * when a header is missing, the timestamp is outside the tolerance, no `v1` signature matches, or the body is not a
 * NewPlant. During a secret rotation either secret's signature is accepted. Deduplicate by the `webhook-id` header:
 * delivery is at least once.
 */
export async function verifyWebhook(
  payload: string | Uint8Array | ArrayBuffer,
  headers: WebhookHeaderSource,
  secret: string,
  options: VerifyWebhookOptions = {},
): Promise<NewPlant> {
  return new PlantStoreWebhook(secret, options).verify(payload, headers);
}

/** {@link verifyWebhook} with the secret imported once, for a receiver that verifies many requests. */
export class PlantStoreWebhook {
  private readonly key: Promise<CryptoKey>;
  private readonly toleranceMs: number;
  private readonly now: () => number;

  constructor(secret: string, options: VerifyWebhookOptions = {}) {
    this.key = importSecret(secret);
    this.key.catch(() => {}); // reported by verify(), not as an unhandled rejection
    this.toleranceMs = (options.toleranceSeconds ?? 300) * 1000;
    this.now = options.now ?? Date.now;
  }

  async verify(payload: string | Uint8Array | ArrayBuffer, headers: WebhookHeaderSource): Promise<NewPlant> {
    const id = header(headers, 'webhook-id');
    const timestamp = header(headers, 'webhook-timestamp');
    const signatures = header(headers, 'webhook-signature');
    if (!id || !timestamp || !signatures) {
      throw new WebhookVerificationError(
        'missing_headers',
        'the request lacks webhook-id, webhook-timestamp or webhook-signature',
      );
    }
    if (!/^\d{1,15}$/.test(timestamp)) {
      throw new WebhookVerificationError('invalid_timestamp', 'webhook-timestamp is not whole seconds since the epoch');
    }
    const skew = this.now() - Number(timestamp) * 1000;
    if (skew > this.toleranceMs) throw new WebhookVerificationError('timestamp_too_old', 'the request is too old');
    if (-skew > this.toleranceMs) {
      throw new WebhookVerificationError('timestamp_too_new', 'the request is timestamped in the future');
    }
    const body = typeof payload === 'string' ? encoder.encode(payload) : new Uint8Array(payload as ArrayBufferLike);
    const prefix = encoder.encode(`${id}.${timestamp}.`);
    const signed = new Uint8Array(prefix.length + body.length);
    signed.set(prefix);
    signed.set(body, prefix.length);
    const expected = new Uint8Array(await crypto.subtle.sign('HMAC', await this.key, signed));
    let matched = false;
    for (const entry of signatures.split(' ')) {
      const [version, value] = entry.split(',', 2);
      const candidate = version === 'v1' && value ? fromBase64(value) : undefined;
      // Every entry is compared, so the time taken does not tell which one matched.
      if (candidate && sameBytes(candidate, expected)) matched = true;
    }
    if (!matched) throw new WebhookVerificationError('invalid_signature', 'no v1 signature matches this secret');
    return parseNewPlant(new TextDecoder('utf-8', { fatal: false }).decode(body));
  }
}
