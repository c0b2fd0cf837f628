// The validating proxy's HTTP side: every request is streamed to the upstream and every answer streamed back, byte for
// byte (bodies are never parsed and re-written, so ids beyond 2^53 and any other bytes pass exactly), while a copy of
// each body, up to a cap, goes to the checks. The upstream gets a deadline: an answer that does not start, or stalls,
// for longer is answered 504 (or cut off) and reported. The proxy's own answers use the contract's Error shape.
import http, { type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { BODY_LIMIT_BYTES } from '@plant-store/contract';
import type { ConformanceContract } from '../contract.js';
import { answerProblems, undeclaredOperation } from './answer-checks.js';
import { CappedBody, CopyBudget } from './capped-body.js';
import { answerHeaders, flatHeaders, forwardedHeaders, originForm } from './forwarding.js';
import { type Head, headMismatch } from './head-check.js';
import { requestProblems } from './request-checks.js';
import { routerOf } from './routes.js';
import { answerUnreadableRequest } from './unreadable-request.js';
import type { Violations } from './violations.js';

export interface ProxyOptions {
  upstream: URL;
  host: string;
  port: number;
  /** Longest the upstream may stay silent: before its answer starts, and between two parts of it. */
  timeoutMs: number;
  /** Largest answer body copied for the checks; a longer one is forwarded whole and reported unchecked. */
  maxAnswerBytes: number;
  /** The bytes all copies under way may hold together; a body that finds them in use is forwarded unchecked. */
  maxCopyBytes: number;
}

export interface RunningProxy {
  url: string;
  /** Stops taking requests, lets those under way finish (their checks too) for up to `graceMs`, then closes. */
  close(graceMs: number): Promise<void>;
}

class UpstreamTimeout extends Error {
  override name = 'UpstreamTimeout';
}

/** A CORS preflight is the browser's question, not an API call: it is forwarded, not checked. */
const isPreflight = (request: IncomingMessage) =>
  request.method === 'OPTIONS' && request.headers['access-control-request-method'] !== undefined;

export async function startProxy(
  options: ProxyOptions,
  contract: ConformanceContract,
  violations: Violations,
): Promise<RunningProxy> {
  const route = routerOf(contract);
  const transport = options.upstream.protocol === 'https:' ? https : http;
  const agent = new transport.Agent({ keepAlive: true });
  const basePath = options.upstream.pathname.replace(/\/$/, '');
  const pending = new Set<Promise<void>>();
  const budget = new CopyBudget(options.maxCopyBytes);

  /** Sends `headers` as a GET of `target` and resolves with the answer's status and headers (its body discarded). */
  const headOfGet = (target: string, headers: OutgoingHttpHeaders) =>
    new Promise<Head | undefined>((resolve) => {
      const request = transport.request(
        options.upstream,
        { method: 'GET', path: `${basePath}${target}`, headers, agent, timeout: options.timeoutMs },
        (answer) => {
          resolve({ status: answer.statusCode ?? 0, headers: answer.headers });
          answer.destroy();
        },
      );
      request.on('timeout', () => request.destroy(new UpstreamTimeout()));
      request.on('error', () => resolve(undefined));
      request.end();
    });

  const exchange = (client: IncomingMessage, res: ServerResponse) =>
    new Promise<void>((resolve) => {
      violations.requests++;
      const method = client.method ?? 'GET';
      const target = originForm(client.url ?? '/');
      const query = target.indexOf('?');
      const pathname = query === -1 ? target : target.slice(0, query);
      const routing = route(method, pathname);
      // The served contract is the service's document, not an answer of the API: forwarded, not checked.
      const checked = !isPreflight(client) && routing.kind !== 'served-contract';
      const operation =
        routing.kind === 'operation' ? routing.operation : undeclaredOperation(contract, method, pathname);
      const name = operation.operationId;
      const said = `${method} ${target}`;
      if (checked && routing.kind === 'undeclared-path') {
        violations.add('request', name, 'undeclared-path', `${said}: the contract has no path ${pathname}`);
      } else if (checked && routing.kind === 'undeclared-method') {
        violations.add('request', name, 'undeclared-method', `${said}: the path takes ${routing.allowed.join(', ')}`);
      }

      const requestBody = new CappedBody(BODY_LIMIT_BYTES, budget);
      let answerBody: CappedBody | undefined;
      /** Ends the exchange: its copies go back to the budget. */
      const done = () => {
        requestBody.release();
        answerBody?.release();
        resolve();
      };
      const forwarded = forwardedHeaders(client.headers, options.upstream);
      const url = `${options.upstream.origin}${basePath}${target}`;
      const started = performance.now();
      let answer: IncomingMessage | undefined;
      let clientGone = false;

      const upstream = transport.request(options.upstream, {
        method,
        path: `${basePath}${target}`,
        headers: forwarded,
        agent,
        timeout: options.timeoutMs,
      });
      let stalled = false;
      upstream.on('timeout', () => {
        stalled = true;
        upstream.destroy(new UpstreamTimeout());
      });
      client.on('error', () => upstream.destroy());
      client.on('data', (chunk: Buffer) => requestBody.push(chunk));
      client.on('end', () => {
        if (!checked || routing.kind !== 'operation') return;
        for (const { rule, problem } of requestProblems(routing, {
          query: new URLSearchParams(target.slice(pathname.length)),
          headers: client.headers,
          body: requestBody,
        })) {
          violations.add('request', name, rule, `${said}: ${problem}`);
        }
        if (requestBody.dropped === 'budget') violations.unchecked++;
        requestBody.release();
      });
      client.pipe(upstream);
      res.on('close', () => {
        if (!res.writableFinished) {
          clientGone = true;
          upstream.destroy();
        }
      });

      /** Reports an exchange the upstream did not complete, and answers 502 or 504 when no answer has begun. */
      const broken = (why: string, status: 502 | 504) => {
        violations.add('response', name, 'answered', `${said}: ${why}`);
        if (res.headersSent) res.destroy();
        else {
          res.writeHead(status, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ error: status, message: `${why}; ${said} was not answered` }));
        }
        done();
      };
      const silence = `the upstream sent nothing for ${options.timeoutMs / 1000} s`;
      upstream.on('error', (error) => {
        if (clientGone) return done();
        if (answer?.complete) {
          // The answer was whole, and more bytes followed it: a body after a HEAD answer, which HTTP has no room for.
          if (method === 'HEAD') violations.add('response', name, 'head', `${said}: HEAD was answered with a body`);
          return;
        }
        // After the answer began, its own close (below) reports the break.
        if (answer) return;
        if (error instanceof UpstreamTimeout) broken(silence, 504);
        else broken(`the upstream did not answer (${(error as NodeJS.ErrnoException).code ?? error.message})`, 502);
      });

      upstream.on('response', (incoming) => {
        answer = incoming;
        const status = incoming.statusCode ?? 0;
        try {
          res.writeHead(status, incoming.statusMessage, answerHeaders(incoming.rawHeaders));
        } catch (error) {
          // A status or header HTTP lets a client read but not a server send (a status under 100, say).
          incoming.destroy();
          return broken(`the upstream's answer cannot be passed on (${(error as Error).message})`, 502);
        }
        const copy = new CappedBody(options.maxAnswerBytes, budget);
        answerBody = copy;
        incoming.on('data', (chunk: Buffer) => copy.push(chunk));
        incoming.on('error', () => {});
        incoming.on('close', () => {
          if (incoming.complete) return;
          if (clientGone) return done();
          broken(stalled ? `${silence} in the middle of its answer` : 'the upstream broke off its answer', 504);
        });
        incoming.pipe(res);
        incoming.on('end', () => {
          if (!checked) return done();
          const ms = performance.now() - started;
          if (copy.dropped === 'cap') {
            const over = `over ${options.maxAnswerBytes} bytes (forwarded, unchecked)`;
            violations.add('response', name, 'body-size', `${said} answered ${status} with ${over}`);
          } else if (copy.dropped === 'budget') {
            violations.unchecked++;
          } else {
            const text = copy.text();
            if (text === undefined) {
              violations.add('response', name, 'encoding', `${said} answered ${status} with a body that is not UTF-8`);
            } else {
              const seen = { request: { method, target }, url, status, headers: flatHeaders(incoming.headers) };
              for (const { rule, problem } of answerProblems(operation, { ...seen, text, ms })) {
                violations.add('response', name, rule, problem);
              }
            }
          }
          if (method !== 'HEAD' || routing.kind !== 'operation') return done();
          void headOfGet(target, forwarded)
            .then((get) => {
              const mismatch = get && headMismatch({ status, headers: incoming.headers }, get);
              if (mismatch) violations.add('response', name, 'head', `${said}: ${mismatch}`);
            })
            .finally(done);
        });
      });
    });

  const server = http.createServer((client, res) => {
    const work = exchange(client, res);
    pending.add(work);
    void work.finally(() => pending.delete(work));
  });
  // A request Node's HTTP parser refuses cannot be forwarded: the proxy answers it in the Error shape, and reports it.
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    const status = answerUnreadableRequest(error, socket);
    if (status === undefined) return;
    violations.add(
      'request',
      '(unreadable)',
      'http',
      `a request HTTP/1.1 does not allow (${error.code}): answered ${status}`,
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${host}:${port}`,
    async close(graceMs) {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.allSettled([...pending]),
        new Promise((resolve) => {
          timer = setTimeout(resolve, graceMs);
        }),
      ]);
      clearTimeout(timer);
      server.closeAllConnections();
      agent.destroy();
      await closed;
    },
  };
}
