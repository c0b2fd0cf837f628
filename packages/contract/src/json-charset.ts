// JSON's charset, as a Content-Type states it: JSON is UTF-8 (RFC 8259), so a charset parameter other than UTF-8 is
// refused by the service for request bodies and failed by the conformance checker for answers.

/** The charset parameter of a Content-Type value (quotes removed), when it has one. */
export function charsetOf(type: string): string | undefined {
  return /;\s*charset\s*=\s*"?([^";\s]*)/i.exec(type)?.[1];
}

/** Whether a charset parameter (or none) is one JSON may be labelled with: absent, `utf-8` or `utf8`, any case. */
export const isJsonCharset = (charset: string | undefined): boolean =>
  charset === undefined || /^utf-?8$/i.test(charset);
