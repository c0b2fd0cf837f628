// The service log: JSON lines at the configured level, each with the request id; off when the level is `silent`.
import type { FastifyRequest, FastifyServerOptions } from 'fastify';
import type { LogLevel } from '../config.js';

function decodedKey(key: string): string | null {
  try {
    return decodeURIComponent(key.replaceAll('+', ' ')).toLowerCase();
  } catch {
    return null;
  }
}

/**
 * The URL for the log: the value of `access_token` is redacted however its name is percent-encoded
 * (`access%5Ftoken`, `%61ccess_token`), since redaction happens after decoding the name.
 */
export function redactQuery(url: string): string {
  const at = url.indexOf('?');
  if (at === -1) return url;
  const query = url
    .slice(at + 1)
    .split('&')
    .map((part) => {
      const equals = part.indexOf('=');
      const key = equals === -1 ? part : part.slice(0, equals);
      const decoded = decodedKey(key);
      // A name that does not decode is redacted too: it could hide the token's name.
      return decoded === null || decoded.includes('access_token') ? `${key}=[redacted]` : part;
    });
  return `${url.slice(0, at)}?${query.join('&')}`;
}

export function loggerOptions(level: LogLevel): FastifyServerOptions['logger'] {
  if (level === 'silent') return false;
  return {
    level,
    serializers: {
      // A token sent in the query string is refused, and must not reach the log either.
      req: (request: FastifyRequest) => ({
        method: request.method,
        url: redactQuery(request.url),
        remoteAddress: request.ip,
      }),
    },
  };
}
