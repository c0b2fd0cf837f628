// Sends the run's requests one at a time and keeps each exchange for the checks and the report. A 429 or 503 that
// carries Retry-After is honoured: the client waits as told, then sends the same request again (those answers are
// checked too, but are not failures). An answer is read as it streams in, up to MAX_ANSWER_BYTES: a deployment that
// sends more cannot take the checker's memory with it. Nothing here knows the contract.

/** The tokens a run holds, by the option that gave them; a curl reproduction names the matching variable. */
export type Principal = 'token' | 'second-token' | 'read-token';

export const TOKEN_VARIABLES: Record<Principal, string> = {
  token: 'PLANT_STORE_TOKEN',
  'second-token': 'PLANT_STORE_SECOND_TOKEN',
  'read-token': 'PLANT_STORE_READ_TOKEN',
};

export interface OutgoingRequest {
  method: string;
  /** Path and query, e.g. /plants?limit=5 (taken as is, no encoding added). */
  target: string;
  /** Whose token goes in `Authorization: Bearer`; none when `authorization` is given or the case sends none. */
  principal?: Principal;
  /** A literal Authorization header (a made-up, wrong or malformed credential). */
  authorization?: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface Exchange {
  request: OutgoingRequest;
  url: string;
  status: number;
  /** Lower-case header names; repeated headers joined with ", " as fetch does. */
  headers: Record<string, string>;
  text: string;
  ms: number;
  /** The 429 and 503 answers waited on before this one, oldest first. */
  waitedOn?: Exchange[];
}

export class TransportError extends Error {
  override name = 'TransportError';
}

/** An answer longer than MAX_ANSWER_BYTES: reading stopped there, and the connection was closed. */
export class AnswerTooLarge extends TransportError {
  override name = 'AnswerTooLarge';
}

export class Interrupted extends Error {
  override name = 'Interrupted';
}

export interface ClientOptions {
  baseUrl: URL;
  tokens: Partial<Record<Principal, string>>;
  /** Longest wait for one answer. */
  timeoutMs?: number;
  /** Longest single Retry-After wait honoured; a longer one is cut to this. */
  maxRetryAfterS?: number;
  userAgent?: string;
}

const MAX_RETRIES = 5;

/** The longest answer read (no answer of the contract comes near: a page of 1,000 plants is about 1 MiB). */
export const MAX_ANSWER_BYTES = 16 * 1024 * 1024;

/** The body of `response` as text, read chunk by chunk; throws AnswerTooLarge past `limit` bytes. */
async function readCapped(response: Response, what: string, limit: number): Promise<string> {
  const tooLarge = () =>
    new AnswerTooLarge(`${what}: the answer is larger than ${limit / 1024 / 1024} MiB; stopped reading there`);
  const declared = Number(response.headers.get('content-length') ?? 0);
  if (declared > limit) {
    await response.body?.cancel();
    throw tooLarge();
  }
  if (!response.body) return '';
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let length = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    length += value.byteLength;
    if (length > limit) {
      await reader.cancel();
      throw tooLarge();
    }
    text += decoder.decode(value, { stream: true });
  }
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new Interrupted('interrupted'));
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new Interrupted('interrupted'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Seconds from a Retry-After value (delta-seconds, or an HTTP date); undefined when it is neither. */
export function retryAfterSeconds(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}

export class HttpClient {
  /** Requests sent, repeats included. */
  sent = 0;
  /** Answers waited on and repeated. */
  retried = 0;
  /** Time spent waiting as Retry-After asked. */
  waitedMs = 0;
  /** Every method sent, with its count (the proof that --read-only writes nothing is in the report too). */
  readonly methods = new Map<string, number>();

  constructor(private readonly options: ClientOptions) {}

  url(target: string): string {
    const base = this.options.baseUrl.href.replace(/\/$/, '');
    return `${base}${target}`;
  }

  /** Sends `request`, honouring Retry-After; `signal` interrupts waits, never a request on the wire. */
  async send(request: OutgoingRequest, signal?: AbortSignal): Promise<Exchange> {
    const waitedOn: Exchange[] = [];
    for (let attempt = 0; ; attempt++) {
      const exchange = await this.sendOnce(request);
      const wait = retryAfterSeconds(exchange.headers['retry-after']);
      const retryable = (exchange.status === 429 || exchange.status === 503) && wait !== undefined;
      if (!retryable || attempt >= MAX_RETRIES) return waitedOn.length > 0 ? { ...exchange, waitedOn } : exchange;
      this.retried++;
      waitedOn.push(exchange);
      const ms = Math.min(wait, this.options.maxRetryAfterS ?? 120) * 1000;
      const started = Date.now();
      try {
        await sleep(ms, signal);
      } finally {
        this.waitedMs += Date.now() - started;
      }
    }
  }

  private async sendOnce(request: OutgoingRequest): Promise<Exchange> {
    try {
      return await this.sendOnSocket(request);
    } catch (error) {
      // A kept-alive connection the server closed just as the request went out: nothing was read, so the request is
      // sent once more on a new connection, as browsers do. A second failure is the service's.
      if (error instanceof TransportError && /UND_ERR_SOCKET|ECONNRESET|EPIPE/.test(error.message)) {
        return await this.sendOnSocket(request);
      }
      throw error;
    }
  }

  private async sendOnSocket(request: OutgoingRequest): Promise<Exchange> {
    const headers: Record<string, string> = {
      accept: 'application/json',
      'user-agent': this.options.userAgent ?? 'plant-store-conformance',
      ...request.headers,
    };
    if (request.authorization !== undefined) headers.authorization = request.authorization;
    else if (request.principal) headers.authorization = `Bearer ${this.options.tokens[request.principal]}`;
    const url = this.url(request.target);
    const started = performance.now();
    this.sent++;
    this.methods.set(request.method, (this.methods.get(request.method) ?? 0) + 1);
    let response: Response;
    let text: string;
    try {
      response = await fetch(url, {
        method: request.method,
        headers,
        ...(request.body === undefined ? {} : { body: request.body }),
        redirect: 'manual',
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 10_000),
      });
      text = await readCapped(response, `${request.method} ${url}`, MAX_ANSWER_BYTES);
    } catch (error) {
      if (error instanceof TransportError) throw error;
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      const why = cause?.code ?? cause?.message ?? (error as Error).message;
      throw new TransportError(`${request.method} ${url}: no answer (${why})`);
    }
    const answerHeaders: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      answerHeaders[name] = value;
    });
    return {
      request,
      url,
      status: response.status,
      headers: answerHeaders,
      text,
      ms: performance.now() - started,
    };
  }
}
