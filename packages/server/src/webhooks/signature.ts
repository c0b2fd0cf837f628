// Standard Webhooks signing (https://www.standardwebhooks.com): `whsec_<base64>` secrets, and `v1,<base64>`
// HMAC-SHA256 signatures over `<webhook-id>.<webhook-timestamp>.<body>`, one per secret during a rotation's overlap.
import { createHmac, randomBytes } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';

/** A new signing secret: 32 random bytes, in the Standard Webhooks form. */
export function generateSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

/** The `webhook-signature` header value: one `v1,` signature per secret, space-separated. */
export function signatureHeader(secrets: readonly string[], id: string, timestamp: number, body: string): string {
  return secrets
    .map((secret) => {
      const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
      return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
    })
    .join(' ');
}
