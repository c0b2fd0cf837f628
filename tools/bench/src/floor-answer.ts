// The answer the floor server repeats: a status-200 answer's headers and body bytes, recorded from a running server
// and kept as JSON (the body in base64, so its bytes survive exactly).

export interface RecordedAnswer {
  headers: Record<string, string>;
  body: Buffer;
}

/** Headers node:http writes itself (or that describe one connection), left out of the recording. */
const OWN_HEADERS = new Set(['content-length', 'connection', 'keep-alive', 'date', 'transfer-encoding']);

/** Fetches `url` with `headers` and records its answer; throws unless it answered 200. */
export async function recordAnswer(url: string, headers: Record<string, string>): Promise<RecordedAnswer> {
  // identity: wrk asks for no encoding, so the floor must repeat the bytes wrk gets.
  const response = await fetch(url, { headers: { ...headers, 'accept-encoding': 'identity' } });
  if (response.status !== 200) throw new Error(`${url} answered ${response.status}, not 200`);
  const kept: Record<string, string> = {};
  for (const [name, value] of response.headers) if (!OWN_HEADERS.has(name)) kept[name] = value;
  return { headers: kept, body: Buffer.from(await response.arrayBuffer()) };
}

export const serialiseAnswer = (answer: RecordedAnswer) =>
  JSON.stringify({ headers: answer.headers, body: answer.body.toString('base64') });

export function parseAnswer(text: string): RecordedAnswer {
  const parsed = JSON.parse(text) as { headers: Record<string, string>; body: string };
  return { headers: parsed.headers, body: Buffer.from(parsed.body, 'base64') };
}
