// Adding a subscription: the URL rules the operator is held to (checked again at every delivery, with DNS), a
// public id and a fresh Standard Webhooks secret, shown once.
import { randomBytes } from 'node:crypto';
import { assertValidSubject } from '../auth/principal.js';
import type { WebhookRepository } from '../store/store.js';
import { refusedTarget } from './send.js';
import { generateSecret } from './signature.js';

const MAX_URL_LENGTH = 2048;

/** The URL as it will be stored, or a TypeError saying why it cannot receive webhooks. */
export function checkWebhookUrl(text: string, allowPrivate: boolean): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new TypeError(`"${text}" is not an absolute URL (e.g. https://example.com/hooks/plants)`);
  }
  if (url.href.length > MAX_URL_LENGTH) throw new TypeError(`the URL must be at most ${MAX_URL_LENGTH} characters`);
  if (url.username || url.password) throw new TypeError('the URL must not carry a user name or password');
  const refusal = refusedTarget(url, allowPrivate);
  if (refusal) throw new TypeError(refusal);
  return url.href;
}

/** Stores a new subscription; returns its id and its secret (the only time the secret is shown). */
export async function addSubscription(
  webhooks: WebhookRepository,
  options: { url: string; subject: string | null; allowPrivate: boolean },
): Promise<{ id: string; url: string; secret: string }> {
  const url = checkWebhookUrl(options.url, options.allowPrivate);
  if (options.subject !== null) assertValidSubject(options.subject);
  const id = `wh_${randomBytes(9).toString('base64url')}`;
  const secret = generateSecret();
  await webhooks.addSubscription({ id, url, subject: options.subject, secret });
  return { id, url, secret };
}

/** Replaces the subscription's secret; the old one keeps signing for `overlapMs`. The new secret, or undefined. */
export async function rotateSecret(
  webhooks: WebhookRepository,
  id: string,
  overlapMs: number,
): Promise<string | undefined> {
  const secret = generateSecret();
  return (await webhooks.rotateSecret(id, secret, new Date(Date.now() + overlapMs))) ? secret : undefined;
}
