// HEAD answers as GET does, without a body (RFC 9110 section 9.3.2, and the contract's HEAD rule): after a HEAD has
// been answered, the proxy sends the same request as a GET (safe by the contract) and compares the status, the
// header names and the content type. Content-Length may differ (a HEAD may omit it), and so may headers that
// describe the connection or the moment; a GET that meets a rate limit or an unavailable service proves nothing.
import type { IncomingHttpHeaders } from 'node:http';

/** Headers whose presence may differ between a HEAD and its GET. */
const MAY_DIFFER = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding', 'content-length']);

export interface Head {
  status: number;
  headers: IncomingHttpHeaders;
}

/** What differs between the HEAD's answer and the GET's; undefined when they agree or the GET proves nothing. */
export function headMismatch(head: Head, get: Head): string | undefined {
  if (get.status === 429 || get.status === 503) return undefined;
  if (head.status !== get.status) return `HEAD answered ${head.status}, GET ${get.status}`;
  const names = (headers: IncomingHttpHeaders) => new Set(Object.keys(headers).filter((name) => !MAY_DIFFER.has(name)));
  const headNames = names(head.headers);
  const getNames = names(get.headers);
  const missing = [...getNames].filter((name) => !headNames.has(name));
  const extra = [...headNames].filter((name) => !getNames.has(name));
  const problems: string[] = [];
  if (missing.length > 0) problems.push(`HEAD lacks ${missing.join(', ')}, which GET sends`);
  if (extra.length > 0) problems.push(`HEAD sends ${extra.join(', ')}, which GET does not`);
  if (head.headers['content-type'] !== get.headers['content-type']) {
    problems.push(`HEAD's Content-Type is ${head.headers['content-type']}, GET's ${get.headers['content-type']}`);
  }
  return problems.length > 0 ? problems.join('; ') : undefined;
}
