// Test support: broken deployments for `plant-store conformance` to catch. Each is an HTTP proxy on loopback in front
// of the real service that breaks one promise of the contract, the way gateways, caches and old builds do.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { answerUnreadableRequest } from '@plant-store/conformance/unreadable-request';
import { INTEGER_TEXT, isInt64, LIMITS } from '@plant-store/contract';

export interface ProxiedRequest {
  method: string;
  /** Path and query. */
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface ProxiedAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface Breakage {
  /** Changes the request on its way to the service. */
  request?(request: ProxiedRequest): ProxiedRequest;
  /** Answers in the service's place (undefined: pass it on). */
  answerInstead?(request: ProxiedRequest): ProxiedAnswer | undefined | Promise<ProxiedAnswer | undefined>;
  /** Changes the answer on its way back. */
  answer?(answer: ProxiedAnswer, request: ProxiedRequest): ProxiedAnswer;
}

export interface Proxy {
  url: string;
  /** Every request that reached the proxy, in order. */
  seen: ProxiedRequest[];
  close(): Promise<void>;
}

// Headers that belong to one connection, not to the message.
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'host', 'upgrade']);

async function readBody(message: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of message) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** A proxy to `target` (http://127.0.0.1:PORT) with `breakage` applied. */
export async function startProxy(target: string, breakage: Breakage = {}): Promise<Proxy> {
  const seen: ProxiedRequest[] = [];
  const server: Server = createServer(async (incoming, outgoing) => {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(incoming.headers)) {
      if (!HOP_BY_HOP.has(name) && value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
    }
    let request: ProxiedRequest = {
      method: incoming.method ?? 'GET',
      url: incoming.url ?? '/',
      headers,
      body: await readBody(incoming),
    };
    seen.push(request);
    request = breakage.request?.(request) ?? request;
    let answer = await breakage.answerInstead?.(request);
    if (!answer) {
      const response = await fetch(`${target}${request.url}`, {
        method: request.method,
        headers: request.headers,
        ...(request.body === '' || request.method === 'GET' || request.method === 'HEAD' ? {} : { body: request.body }),
        redirect: 'manual',
      });
      const answerHeaders: Record<string, string> = {};
      response.headers.forEach((value, name) => {
        if (!HOP_BY_HOP.has(name)) answerHeaders[name] = value;
      });
      answer = { status: response.status, headers: answerHeaders, body: await response.text() };
      answer = breakage.answer?.(answer, request) ?? answer;
    }
    outgoing.writeHead(answer.status, answer.headers);
    outgoing.end(request.method === 'HEAD' ? undefined : answer.body);
  });
  // Requests Node's parser refuses (control bytes, huge headers) get the Error body, as the service gives them: the
  // answer the validating proxy gives them, without its report.
  server.on('clientError', answerUnreadableRequest);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const isPlantsList = (request: ProxiedRequest) => request.method === 'GET' && /^\/plants(\?|$)/.test(request.url);
const isJson = (answer: ProxiedAnswer) => (answer.headers['content-type'] ?? '').startsWith('application/json');

/** A gateway that strips the Link header. */
export const dropsLink: Breakage = {
  answer: ({ headers: { link: _link, ...headers }, ...rest }) => ({ ...rest, headers }),
};

/** A proxy that re-encodes JSON bodies through doubles: 9007199254740993 arrives as 9007199254740992. */
export const numbersAsDoubles: Breakage = {
  request: (request) => {
    if (!(request.headers['content-type'] ?? '').startsWith('application/json')) return request;
    try {
      return { ...request, body: JSON.stringify(JSON.parse(request.body)) };
    } catch {
      return request;
    }
  },
};

/** A cache keyed on the URL alone: whoever asks first, everyone gets their page. */
export function sharedPageCache(): Breakage {
  const pages = new Map<string, ProxiedAnswer>();
  return {
    answerInstead: (request) => (isPlantsList(request) ? pages.get(request.url) : undefined),
    answer: (answer, request) => {
      if (isPlantsList(request) && answer.status === 200) pages.set(request.url, answer);
      return answer;
    },
  };
}

/** A server that fails with 500 on one input (a page of `limit=1000`). */
export const serverErrorOnLargestPage: Breakage = {
  answerInstead: (request) =>
    /[?&]limit=1000(&|$)/.test(request.url)
      ? {
          status: 500,
          headers: { 'content-type': 'application/json' },
          body: '{"error":500,"message":"internal error"}',
        }
      : undefined,
};

/** A server that answers 200 to deleting an id it does not have. */
export const deletesUnknownWith200: Breakage = {
  answer: (answer, request) =>
    request.method === 'DELETE' && answer.status === 404 ? { status: 200, headers: {}, body: '' } : answer,
};

/** A gateway that labels JSON answers Latin-1 (the bytes still UTF-8): a client that believes it reads `Café` as
 * `CafÃ©`. */
export const labelsJsonLatin1: Breakage = {
  answer: (answer) =>
    isJson(answer)
      ? { ...answer, headers: { ...answer.headers, 'content-type': 'application/json; charset=iso-8859-1' } }
      : answer,
};

/** A gateway that answers every DELETE 204 itself and forwards none: nothing is ever deleted (a run leaves all it
 * created behind). */
export const forgetsDeletes: Breakage = {
  answerInstead: (request) => (request.method === 'DELETE' ? { status: 204, headers: {}, body: '' } : undefined),
};

/** A store that loses each acknowledged create `delayMs` later (a job deletes it through the service behind this
 * proxy, at `target`, as the plant's owner). `stop()` cancels the deletes still to come. */
export function losesCreatesAfter(target: string, delayMs: number): Breakage & { stop(): void } {
  const timers = new Set<NodeJS.Timeout>();
  const lose = (id: string, authorization: string) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      fetch(`${target}/plants/${id}`, { method: 'DELETE', headers: { authorization } })
        .then((response) => response.body?.cancel())
        .catch(() => {});
    }, delayMs);
    timers.add(timer);
  };
  return {
    stop: () => {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
    },
    answer: (answer, request) => {
      // The answer carries no id: the request's body says which plant it made.
      const id = /"id"\s*:\s*(-?\d+)/.exec(request.body)?.[1];
      if (request.method === 'POST' && answer.status === 200 && id) lose(id, request.headers.authorization ?? '');
      return answer;
    },
  };
}

/** A build that leaks a field the contract does not declare into every Plant it answers with. */
export const addsOwnerField: Breakage = {
  answer: (answer, request) => {
    if (answer.status !== 200 || !isJson(answer) || !request.url.startsWith('/plants')) return answer;
    const value = JSON.parse(answer.body) as unknown;
    const leak = (plant: unknown) => ({ ...(plant as object), owner: 'someone' });
    const body = Array.isArray(value) ? value.map(leak) : leak(value);
    return { ...answer, body: JSON.stringify(body) };
  },
};

/** Terminal escapes: clear the screen, set the window title (ended by BEL), a C1 CSI, DEL, and a fake verdict on a
 * line of its own. */
export const TERMINAL_ESCAPES = '\u001b[2J\u001b]0;owned\u0007\u009b31m\u007f\r\nPASSED: every check held.';

/** A deployment whose served contract version, and a field name in every Plant, are TERMINAL_ESCAPES. */
export const sendsTerminalEscapes: Breakage = {
  answer: (answer, request) => {
    if (answer.status !== 200 || !isJson(answer)) return answer;
    const value = JSON.parse(answer.body) as Record<string, unknown>;
    if (request.url === '/openapi.json') {
      return {
        ...answer,
        body: JSON.stringify({ ...value, info: { ...(value.info as object), version: TERMINAL_ESCAPES } }),
      };
    }
    if (!request.url.startsWith('/plants')) return answer;
    const leak = (plant: unknown) => ({ ...(plant as object), [TERMINAL_ESCAPES]: 1 });
    return { ...answer, body: JSON.stringify(Array.isArray(value) ? value.map(leak) : leak(value)) };
  },
};

/** A server that answers a page of `limit=1000` with 17 MiB, beyond what the checker reads. */
export const floodsLargestPage: Breakage = {
  answerInstead: (request) =>
    /[?&]limit=1000(&|$)/.test(request.url)
      ? { status: 200, headers: { 'content-type': 'application/json' }, body: `"${'x'.repeat(17 * 1024 * 1024)}"` }
      : undefined,
};

/** A rate limiter that answers every `every`-th request with 429 and Retry-After: 1, a `times` times. */
export function rateLimitsNow(every: number, times: number): Breakage & { limited(): number } {
  let count = 0;
  let limited = 0;
  return {
    limited: () => limited,
    answerInstead: () => {
      count++;
      if (count % every !== 0 || limited >= times) return undefined;
      limited++;
      return {
        status: 429,
        headers: { 'content-type': 'application/json', 'retry-after': '1' },
        body: '{"error":429,"message":"too many requests; retry after 1 second"}',
      };
    },
  };
}

const errorAnswer = (status: number, message: string): ProxiedAnswer => ({
  status,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ error: status, message }),
});

/** A cache keyed on the URL that serves its page to any token it has seen accepted (but to no stranger): it checks
 * that a caller holds a live token, not whose. Tokenless and made-up tokens still get the service's 401. */
export function tokenBlindPageCache(): Breakage {
  const pages = new Map<string, ProxiedAnswer>();
  const accepted = new Set<string>();
  return {
    answerInstead: (request) =>
      isPlantsList(request) && accepted.has(request.headers.authorization ?? '') ? pages.get(request.url) : undefined,
    answer: (answer, request) => {
      if (isPlantsList(request) && answer.status === 200) {
        accepted.add(request.headers.authorization ?? '');
        pages.set(request.url, answer);
      }
      return answer;
    },
  };
}

/** A router that answers a method the path does not declare with 404 (no such route), not 405. */
export const undeclaredMethodAs404: Breakage = {
  answer: (answer) => (answer.status === 405 ? errorAnswer(404, 'no such route') : answer),
};

/** A gateway that takes a body without Content-Type for JSON. */
export const assumesJson: Breakage = {
  request: (request) =>
    request.body !== '' && request.headers['content-type'] === undefined
      ? { ...request, headers: { ...request.headers, 'content-type': 'application/json' } }
      : request,
};

/** A per-principal list cache that writes never reach: a page stays as it was first served. */
export function staleListCache(): Breakage {
  const pages = new Map<string, ProxiedAnswer>();
  const key = (request: ProxiedRequest) => `${request.headers.authorization ?? ''} ${request.url}`;
  const cacheable = (request: ProxiedRequest) => isPlantsList(request) && !request.headers['if-none-match'];
  return {
    answerInstead: (request) => (cacheable(request) ? pages.get(key(request)) : undefined),
    answer: (answer, request) => {
      if (cacheable(request) && answer.status === 200) pages.set(key(request), answer);
      return answer;
    },
  };
}

/** A soft delete: the plant is gone from the lists, but its id stays taken (a create of it is a 409). */
export function softDeleteKeepsIds(): Breakage {
  const deleted = new Set<string>();
  const idInBody = (body: string) => /"id"\s*:\s*(-?\d+)/.exec(body)?.[1];
  return {
    answerInstead: (request) => {
      const id = request.method === 'POST' ? idInBody(request.body) : undefined;
      return id !== undefined && deleted.has(`${request.headers.authorization} ${id}`)
        ? errorAnswer(409, `a plant with id ${id} exists`)
        : undefined;
    },
    answer: (answer, request) => {
      const id = /^\/plants\/(-?\d+)$/.exec(request.url)?.[1];
      if (request.method === 'DELETE' && id && answer.status === 204)
        deleted.add(`${request.headers.authorization} ${id}`);
      return answer;
    },
  };
}

/** A gateway that strips the quotes of every ETag (W/"x" becomes W/x). */
export const unquotesEtag: Breakage = {
  answer: (answer) =>
    answer.headers.etag === undefined
      ? answer
      : { ...answer, headers: { ...answer.headers, etag: answer.headers.etag.replaceAll('"', '') } },
};

/** A build that cuts a name beyond the contract's maxLength to fit, instead of refusing it. */
export const truncatesLongNames: Breakage = {
  request: (request) => {
    let name: unknown;
    try {
      name = (JSON.parse(request.body) as { name?: unknown }).name;
    } catch {
      return request;
    }
    if (typeof name !== 'string' || [...name].length <= LIMITS.name.maxLength) return request;
    const cut = [...name].slice(0, LIMITS.name.maxLength).join('');
    return { ...request, body: request.body.replace(JSON.stringify(name), JSON.stringify(cut)) };
  },
};

/** A web application firewall that refuses every body holding a character beyond ASCII. */
export const refusesNonAsciiBodies: Breakage = {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the whole ASCII range is the point.
  answerInstead: (request) => (/[^\u0000-\u007f]/.test(request.body) ? errorAnswer(400, 'ASCII only') : undefined),
};

/** A server that fails with 500 on a header holding a byte beyond ASCII (Node reads those bytes as Latin-1). */
export const failsOnNonAsciiHeaders: Breakage = {
  answerInstead: (request) =>
    Object.values(request.headers).some((value) => /[\u0080-\u00ff]/.test(value))
      ? errorAnswer(500, 'internal error')
      : undefined,
};

/** A cache that answers If-None-Match from the ETag it last saw for the URL, whoever it was served to. */
export function sharedEtagCache(): Breakage {
  const etags = new Map<string, string>();
  return {
    answerInstead: (request) => {
      const etag = etags.get(request.url);
      return isPlantsList(request) && etag !== undefined && request.headers['if-none-match'] === etag
        ? { status: 304, headers: { etag }, body: '' }
        : undefined;
    },
    answer: (answer, request) => {
      if (isPlantsList(request) && answer.status === 200 && answer.headers.etag)
        etags.set(request.url, answer.headers.etag);
      return answer;
    },
  };
}

/** A gateway that drops the Idempotency-Key header. */
export const dropsIdempotencyKey: Breakage = {
  request: ({ headers: { 'idempotency-key': _key, ...headers }, ...rest }) => ({ ...rest, headers }),
};

const WINDOW = 'x-offset-window';

/** Paging by position: the cursor is an offset into the whole list (fetched anew for each page), so a create or a
 * delete before the position moves every later plant across a page boundary. */
export const offsetCursors: Breakage = {
  request: (request) => {
    if (!isPlantsList(request)) return request;
    const query = new URL(request.url, 'http://proxy').searchParams;
    const offset = /^o(\d+)$/.exec(query.get('cursor') ?? '')?.[1] ?? '0';
    const { 'if-none-match': _etag, ...headers } = request.headers;
    const limit = query.get('limit') ?? String(LIMITS.limit.default);
    return {
      ...request,
      url: `/plants?limit=${LIMITS.limit.maximum}`,
      headers: { ...headers, [WINDOW]: `${offset},${limit}` },
    };
  },
  answer: (answer, request) => {
    const window = request.headers[WINDOW];
    if (window === undefined || answer.status !== 200) return answer;
    const [offset = 0, limit = 0] = window.split(',').map(Number);
    const plants = JSON.parse(answer.body) as unknown[];
    const { link: _link, ...headers } = answer.headers;
    const more = offset + limit < plants.length;
    return {
      ...answer,
      headers: more ? { ...headers, link: `</plants?limit=${limit}&cursor=o${offset + limit}>; rel="next"` } : headers,
      body: JSON.stringify(plants.slice(offset, offset + limit)),
    };
  },
};

/** A plant as a by-id read answers it. */
interface StoredPlant {
  name: string;
  tag?: string;
}

const answerOf = async (response: Response): Promise<ProxiedAnswer> => {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (!HOP_BY_HOP.has(name)) headers[name] = value;
  });
  return { status: response.status, headers, body: await response.text() };
};

/**
 * The service with getPlant (GET /plants/{id}) and updatePlant (PUT /plants/{id}, a body of name and tag) added, the
 * way a contract change would add them, on top of the service at `target`, which has neither: it keeps each caller's
 * plants from the creates and deletes it passes on, reads one from that record, and updates one as the service's own
 * create of the id (a 409: it exists) then its delete and create again, so the lists show the update. Each request is
 * checked as the service checks one: the path id, no query, then the token (a probe of the list), the body by the
 * service's create. `readsUnknownIds` breaks it: a read of an id never created answers 200; so does
 * `ignoresUpdates`: an update of a plant answers 200 with what was sent, and changes nothing.
 */
export function servesPlantsById(target: string, { readsUnknownIds = false, ignoresUpdates = false } = {}): Breakage {
  const plants = new Map<string, Map<string, StoredPlant>>();
  const of = (authorization: string | undefined) => {
    const own = plants.get(authorization ?? '') ?? new Map<string, StoredPlant>();
    plants.set(authorization ?? '', own);
    return own;
  };
  const item = (url: string) => /^\/plants\/([^/?]*)(\?.*)?$/.exec(url);
  const canonicalId = (segment: string): string | undefined => {
    let text: string;
    try {
      text = decodeURIComponent(segment);
    } catch {
      return undefined;
    }
    return INTEGER_TEXT.test(text) && text !== '-0' && isInt64(BigInt(text)) ? text : undefined;
  };
  const send = (method: string, url: string, headers: Record<string, string>, body?: string) =>
    fetch(`${target}${url}`, { method, headers, ...(body === undefined ? {} : { body }) }).then(answerOf);
  const json = (status: number, value: unknown): ProxiedAnswer => ({
    status,
    headers: { 'content-type': 'application/json; charset=utf-8' },
    body: JSON.stringify(value),
  });
  return {
    answerInstead: async (request) => {
      const match = item(request.url);
      if (!match || !['GET', 'HEAD', 'PUT'].includes(request.method)) return undefined;
      const id = canonicalId(match[1] ?? '');
      if (id === undefined) return errorAnswer(400, 'path parameter id must be a signed 64-bit integer');
      if (match[2] !== undefined) return errorAnswer(400, 'this operation takes no query parameters');
      const authorization = request.headers.authorization;
      const auth: Record<string, string> = authorization === undefined ? {} : { authorization };
      if (request.method !== 'PUT') {
        const probe = await send('GET', '/plants?limit=1', auth);
        if (probe.status === 401 || probe.status === 403) return probe;
        const plant = of(authorization).get(id);
        if (plant) return json(200, plant);
        return readsUnknownIds ? json(200, { name: `plant ${id}` }) : errorAnswer(404, `no plant with id ${id}`);
      }
      let fields: unknown;
      try {
        fields = JSON.parse(request.body);
      } catch {
        fields = undefined;
      }
      if (fields !== null && typeof fields === 'object' && Object.hasOwn(fields, 'id')) {
        return errorAnswer(400, 'body field id is not allowed');
      }
      // The service's create checks the body, the content type and the token: the same body with the path's id.
      const text = request.body.trim();
      const rest = text.slice(1).trimStart();
      const create = text.startsWith('{') ? `{"id":${id}${rest.startsWith('}') ? '' : ','}${rest}` : request.body;
      const headers = {
        ...auth,
        ...(request.headers['content-type'] ? { 'content-type': request.headers['content-type'] } : {}),
      };
      const first = await send('POST', '/plants', headers, create);
      if (first.status === 200) {
        await send('DELETE', `/plants/${id}`, auth);
        return errorAnswer(404, `no plant with id ${id}`);
      }
      if (first.status !== 409) return first;
      if (ignoresUpdates) {
        const { name, tag } = JSON.parse(create) as StoredPlant;
        return json(200, { name, ...(tag === undefined ? {} : { tag }) });
      }
      const removed = await send('DELETE', `/plants/${id}`, auth);
      if (removed.status !== 204) return removed;
      const updated = await send('POST', '/plants', headers, create);
      if (updated.status === 200) {
        const { name, tag } = JSON.parse(create) as StoredPlant;
        of(authorization).set(id, { name, ...(tag === undefined ? {} : { tag }) });
      } else of(authorization).delete(id);
      return updated;
    },
    answer: (answer, request) => {
      const match = item(request.url);
      if (request.method === 'POST' && request.url === '/plants' && answer.status === 200) {
        const id = /"id"\s*:\s*(-?\d+)/.exec(request.body)?.[1];
        const { name, tag } = JSON.parse(request.body) as StoredPlant;
        if (id !== undefined)
          of(request.headers.authorization).set(id, { name, ...(tag === undefined ? {} : { tag }) });
      }
      if (match && request.method === 'DELETE' && answer.status === 204) {
        of(request.headers.authorization).delete(canonicalId(match[1] ?? '') ?? '');
      }
      if (match && answer.status === 405)
        return { ...answer, headers: { ...answer.headers, allow: 'DELETE, GET, HEAD, PUT' } };
      return answer;
    },
  };
}
