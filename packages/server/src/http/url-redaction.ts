// The one rule that keeps tokens out of what the service writes down about a request's URL: the log line's `url` and
// the trace's `url.path` and `url.query` attributes both come from here.
function decodedKey(key: string): string | null {
  try {
    return decodeURIComponent(key.replaceAll('+', ' ')).toLowerCase();
  } catch {
    return null;
  }
}

const ACCESS_TOKEN = /access_token/i;

/**
 * The URL for the log: the value of `access_token` is redacted however its name is percent-encoded
 * (`access%5Ftoken`, `%61ccess_token`), since redaction happens after decoding the name.
 */
export function redactQuery(url: string): string {
  const at = url.indexOf('?');
  if (at === -1) return url;
  // Without a percent sign no name decodes to anything but itself: only a literal access_token needs the walk (the
  // test reads the whole URL without copying it in lower case; the walk leaves a path's access_token alone).
  if (!url.includes('%', at) && !ACCESS_TOKEN.test(url)) return url;
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

/**
 * The URL as OpenTelemetry's semantic conventions split it: `url.path` without the query, and `url.query` (without
 * the `?`, redacted by the rule above), absent when the URL has none.
 */
export function redactedUrlAttributes(url: string): { 'url.path': string; 'url.query'?: string } {
  const at = url.indexOf('?');
  if (at === -1) return { 'url.path': url };
  return { 'url.path': url.slice(0, at), 'url.query': redactQuery(url).slice(at + 1) };
}
