// What the proxy changes in the messages it forwards, and nothing more: the hop-by-hop headers, Host, and an absolute
// request target (a client that uses it as an HTTP proxy) turned into a path. Bodies are never touched.
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';

// Hop-by-hop headers (RFC 9110 section 7.6.1) belong to one connection, not to the message. Accept-Encoding is left
// out too, so the upstream answers uncompressed and the checks read the bytes the client gets.
const REQUEST_DROPPED = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'te',
  'trailer',
  'upgrade',
  'host',
  'accept-encoding',
]);
const ANSWER_DROPPED = new Set(['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'upgrade']);

/** The request's headers as the upstream gets them: without the hop-by-hop ones, `Host` the upstream's. */
export function forwardedHeaders(headers: IncomingHttpHeaders, upstream: URL): OutgoingHttpHeaders {
  const named = String(headers.connection ?? '')
    .toLowerCase()
    .split(',')
    .map((name) => name.trim());
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!REQUEST_DROPPED.has(name) && !named.includes(name) && value !== undefined) out[name] = value;
  }
  out.host = upstream.host;
  return out;
}

/** Raw header pairs (names as the upstream spelled them, repeats kept) without the hop-by-hop ones. */
export function answerHeaders(raw: string[]): string[] {
  const out: string[] = [];
  for (let index = 0; index + 1 < raw.length; index += 2) {
    if (!ANSWER_DROPPED.has(raw[index]!.toLowerCase())) out.push(raw[index]!, raw[index + 1]!);
  }
  return out;
}

/** Lower-case names, repeats joined with ", " (as fetch gives them and the checks read them). */
export function flatHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/** The request target in origin form (path and query), whatever form the client sent. */
export function originForm(url: string): string {
  if (url.startsWith('/')) return url;
  try {
    const absolute = new URL(url);
    return `${absolute.pathname}${absolute.search}`;
  } catch {
    return url;
  }
}
