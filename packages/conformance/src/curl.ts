// A request as a curl command line anyone can paste: the run's tokens are never printed, only the environment
// variable that holds each (PLANT_STORE_TOKEN, ...); made-up credentials the run sent on purpose are shown as sent.
import { type OutgoingRequest, TOKEN_VARIABLES } from './http-client.js';

// Characters a plain single-quoted shell word cannot show legibly: controls (C0, DEL, C1) and line separators.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/u;

/** `text` as one shell word: single quotes, or $'...' with \uXXXX escapes where it holds control characters. */
export function shellQuote(text: string): string {
  if (/^[A-Za-z0-9_./:=@%+,-]+$/.test(text)) return text;
  if (!UNPRINTABLE.test(text)) return `'${text.replaceAll("'", `'\\''`)}'`;
  const escaped = [...text]
    .map((char) => {
      if (char === '\\') return '\\\\';
      if (char === "'") return "\\'";
      return UNPRINTABLE.test(char) ? `\\u${char.codePointAt(0)!.toString(16).padStart(4, '0')}` : char;
    })
    .join('');
  return `$'${escaped}'`;
}

/** The curl command that sends `request` to `url` again. */
export function curlOf(request: OutgoingRequest, url: string): string {
  const parts = ['curl', '-g', '-i', '--path-as-is', '-X', request.method, shellQuote(url)];
  if (request.authorization !== undefined) parts.push('-H', shellQuote(`Authorization: ${request.authorization}`));
  else if (request.principal) parts.push('-H', `"Authorization: Bearer \${${TOKEN_VARIABLES[request.principal]}}"`);
  for (const [name, value] of Object.entries(request.headers ?? {})) parts.push('-H', shellQuote(`${name}: ${value}`));
  if (request.body !== undefined) {
    // A long run of one letter (an oversized body) is written by the shell: a 20 kB argument is unreadable.
    const repeated = /^(.{0,200}?)([A-Za-z0-9])\2{199,}(.{0,200})$/su.exec(request.body);
    if (repeated) {
      const [, head, letter, tail] = repeated;
      const count = request.body.length - head!.length - tail!.length;
      const run = `head -c ${count} /dev/zero | tr '\\0' ${letter}`;
      parts.push('--data-binary', `"$(printf '%s' ${shellQuote(head!)}; ${run}; printf '%s' ${shellQuote(tail!)})"`);
    } else {
      parts.push('--data-binary', shellQuote(request.body));
    }
  }
  return parts.join(' ');
}
