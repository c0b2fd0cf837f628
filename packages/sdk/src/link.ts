// RFC 8288 Link headers: finds the rel="next" target of a page of plants.

/** The URL of the `rel="next"` link, resolved against `base`; undefined when there is none. */
export function nextLink(header: string | null, base: string): URL | undefined {
  if (!header) return undefined;
  for (const part of header.split(/,\s*(?=<)/)) {
    const match = /^\s*<([^>]*)>(.*)$/.exec(part);
    if (!match) continue;
    const rels = /;\s*rel\s*=\s*(?:"([^"]*)"|([^\s;,]+))/i.exec(match[2] ?? '');
    const rel = rels?.[1] ?? rels?.[2] ?? '';
    if (rel.toLowerCase().split(/\s+/).includes('next')) return new URL(match[1] ?? '', base);
  }
  return undefined;
}
