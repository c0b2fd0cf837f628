// The service log: JSON lines at the configured level, each with the request id; off when the level is `silent`.
// With ACCESS_LOG on, a request is one line at `info` ("request completed": method, redacted URL, address, status,
// time), written when its answer is done; `debug` adds an "incoming request" line when it arrives. Off (the default),
// a request writes only what it has to say beside that (a refusal's reason, an error).
//
// What a request costs the log is priced in the performance manual (layer table): pino's child logger per request and
// its generic serialization of the line were most of it. So a request's logger is made only when the request writes
// something beside its access line (a refusal's reason, an error), and the access line, whose fields are fixed, is
// written as text straight to pino's stream, in the very shape pino gives it (test/http/access-log.unit.test.ts).
import { hostname } from 'node:os';
import {
  type FastifyBaseLogger,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
  LogController,
} from 'fastify';
import {
  type Bindings,
  type ChildLoggerOptions,
  type LevelWithSilent,
  type Logger,
  stdSerializers,
  symbols,
} from 'pino';
import type { LogLevel } from '../config.js';
import { redactQuery } from './url-redaction.js';

const text = JSON.stringify;
// Printable ASCII but `"` and `\`: JSON writes such a text as it is, between quotes.
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/** A text as JSON: the common case (a method, a path, an address, a request id) without JSON.stringify's walk. */
export function quoted(value: string): string {
  return PLAIN.test(value) ? `"${value}"` : text(value);
}

/**
 * Standard output for log lines, written without waiting for each write: lines gather for at most FLUSH_MS, or until
 * FLUSH_BYTES of them wait, and are then handed to process.stdout together, which writes them while the next batch
 * gathers (to a pipe without blocking: Node writes what the pipe takes and queues the rest). Under load that is one
 * write of tens of kilobytes instead of one per turn of the event loop (a write per turn was the larger part of what
 * the access log cost the hot read); a quiet service's line reaches the output within FLUSH_MS.
 *
 * While standard output does not drain (a stalled reader), at most LOG_BUFFER_BYTES wait in memory: lines beyond it
 * are dropped, counted (plant_store_log_lines_dropped_total) and, once the output drains, reported in one line saying
 * how many and since when. Nothing ever waits on the reader: shutdown gives the output FINAL_FLUSH_MS to take what is
 * left (flushLog), and at exit whatever it still holds is lost, said on standard error. A process killed outright
 * (SIGKILL, out of memory) loses at most the last FLUSH_MS of lines besides what the output held.
 *
 * An access line waits as its fields (writeAccess), not as text, and is written out when its batch is handed over, in
 * the order the lines came: built on the request's path, LOG_LEVEL=info cost the hot read 1.11-1.16x the CPU a
 * request of `warn`; built with its batch, 1.08-1.10x (docs/performance.md).
 */
export const FLUSH_MS = 10;
// Counted in characters, which are the bytes of the log's JSON lines but for the rare non-ASCII one.
export const FLUSH_BYTES = 64 * 1024;
const LOG_BUFFER_BYTES = 16 * 1024 * 1024;
/** How long shutdown waits for standard output to take the log's last lines. */
export const FINAL_FLUSH_MS = 1_000;
/** The most characters of a caller-chosen text (a URL, an address) a log line repeats; the rest is cut. */
export const LOGGED_TEXT_MAX = 1_024;

/** Log lines dropped by this process because standard output did not take them (read by /metrics). */
export const logDrops = { lines: 0 };

/** A caller-chosen text as a log line repeats it: at most LOGGED_TEXT_MAX characters, then how long it was. */
export function cutForLog(text: string): string {
  return text.length <= LOGGED_TEXT_MAX ? text : `${text.slice(0, LOGGED_TEXT_MAX)}...(${text.length} characters)`;
}

/** An access line's fields, as accessLine takes them, waiting in a batch. */
export interface AccessFields {
  readonly time: number;
  readonly root: Logger;
  readonly bindings: Bindings;
  readonly method: string;
  readonly url: string;
  readonly ip: string;
  readonly statusCode: number;
  readonly responseTime: number;
}

// An access line waiting as its fields is counted toward FLUSH_BYTES and the output's bound as this plus its URL's and
// address's lengths as they came (what the fields hold): the line's fixed keys, a 13-digit time, a 64-character host
// name and a 128-character request id (request-id.ts) come to about 400. Built, the line is shorter where a text was
// cut, and longer where JSON escapes one of its characters.
const ACCESS_LINE_CHARS = 400;

export class BatchedOutput {
  #pending = '';
  /** Access lines not yet written out: they come after #pending. */
  #access: AccessFields[] = [];
  /** #pending's length, and what the waiting access lines count for (writeAccess). */
  #waiting = 0;
  #timer: NodeJS.Timeout | undefined;
  #broken = false;
  /** Lines dropped since the output last drained, and when the first of them was. */
  #dropped = 0;
  #droppedSince = 0;

  constructor(
    private readonly out: NodeJS.WritableStream & { readonly writableLength: number } = process.stdout,
    private readonly limit = LOG_BUFFER_BYTES,
  ) {
    // Standard output closed (EPIPE): lines have nowhere to go, and the service goes on.
    out.on('error', () => {
      this.#broken = true;
    });
    out.on('drain', () => this.#reportDrops());
  }

  write(line: string): boolean {
    if (!this.#takes(line.length)) return true;
    if (this.#access.length > 0) this.#writeOutAccess();
    this.#pending += line;
    this.#waiting += line.length;
    this.#waited();
    return true;
  }

  /** The access line of these fields, written out with its batch. */
  writeAccess(fields: AccessFields): void {
    const chars = ACCESS_LINE_CHARS + fields.url.length + fields.ip.length;
    if (!this.#takes(chars)) return;
    this.#access.push(fields);
    this.#waiting += chars;
    this.#waited();
  }

  /** Whether `chars` more fit within the bound; counted as a dropped line when they do not. */
  #takes(chars: number): boolean {
    if (!this.#broken && this.out.writableLength + this.#waiting + chars <= this.limit) return true;
    if (this.#dropped === 0) this.#droppedSince = Date.now();
    this.#dropped += 1;
    logDrops.lines += 1;
    return false;
  }

  #waited(): void {
    if (this.#waiting >= FLUSH_BYTES) {
      this.#flush();
    } else if (this.#timer === undefined) {
      // Unref'd: a line waiting to be written never keeps the process alive (the exit handler hands it over).
      this.#timer = setTimeout(this.#handOver, FLUSH_MS);
      this.#timer.unref();
    }
  }

  #writeOutAccess(): void {
    let text = this.#pending;
    for (const line of this.#access) {
      text += accessLine(line);
    }
    this.#access = [];
    this.#pending = text;
  }

  readonly #handOver = () => this.#flush();

  #flush(): void {
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    if (this.#access.length > 0) this.#writeOutAccess();
    const batch = this.#pending;
    this.#pending = '';
    this.#waiting = 0;
    if (batch !== '' && !this.#broken) this.out.write(batch);
  }

  /** The output drained: say how many lines were dropped before, and since when. */
  #reportDrops(): void {
    if (this.#dropped === 0) return;
    const line =
      `{"level":40,"time":${Date.now()},"pid":${process.pid},"hostname":${text(hostname())},` +
      `"dropped":${this.#dropped},"since":${text(new Date(this.#droppedSince).toISOString())},` +
      `"msg":"log lines dropped: standard output did not take them"}\n`;
    this.#dropped = 0;
    this.write(line);
  }

  /** Resolves once the output took every line, or after `deadlineMs`, whichever is first. */
  drained(deadlineMs: number): Promise<void> {
    this.#flush();
    if (this.#broken || this.out.writableLength === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.out.off('drain', done);
        resolve();
      };
      const timer = setTimeout(done, deadlineMs);
      this.out.once('drain', done);
    });
  }

  /** At exit: hand the last lines over (the output takes what it can at once) and say on stderr what is lost. */
  exit(): void {
    this.#flush();
    const unwritten = this.#broken ? 0 : this.out.writableLength;
    if (unwritten === 0 && this.#dropped === 0) return;
    const dropped =
      this.#dropped > 0 ? `; ${this.#dropped} lines dropped since ${new Date(this.#droppedSince).toISOString()}` : '';
    process.stderr.write(
      `plant-store: log lost at exit: standard output did not take the last ${unwritten} bytes${dropped}\n`,
    );
  }
}

let output: BatchedOutput | undefined;

function standardOutput(): BatchedOutput {
  if (output === undefined) {
    const created = new BatchedOutput();
    // Before any other exit handler: what is lost is said while standard error still takes it.
    process.prependListener('exit', () => created.exit());
    output = created;
  }
  return output;
}

/** Gives standard output at most FINAL_FLUSH_MS to take the log's lines (shutdown waits for this, then exits). */
export function flushLog(deadlineMs = FINAL_FLUSH_MS): Promise<void> {
  return output?.drained(deadlineMs) ?? Promise.resolve();
}

export function loggerOptions(level: LogLevel): FastifyServerOptions['logger'] {
  if (level === 'silent') return false;
  return {
    level,
    // One output for every app of the process (tests build many): they all write to standard output.
    stream: standardOutput(),
    serializers: {
      // A token sent in the query string is refused, and must not reach the log either.
      req: (request: FastifyRequest) => ({
        method: cutForLog(request.method),
        url: cutForLog(redactQuery(request.url)),
        remoteAddress: cutForLog(request.ip),
      }),
      err: cutError,
    },
    // A line's other texts may be the caller's too (a refusal's reason names what it sent): cut them as well.
    formatters: { log: cutTexts },
  };
}

/** A line's fields with every text longer than LOGGED_TEXT_MAX cut (a copy when one is). */
export function cutTexts(fields: Record<string, unknown>): Record<string, unknown> {
  let cut: Record<string, unknown> | undefined;
  for (const key in fields) {
    const value = fields[key];
    if (typeof value === 'string' && value.length > LOGGED_TEXT_MAX) {
      cut ??= { ...fields };
      cut[key] = cutForLog(value);
    }
  }
  return cut ?? fields;
}

/** pino's error serializer, with a long message cut (in the stack's first line too). */
function cutError(error: Error) {
  const serialized = stdSerializers.err(error);
  if (serialized.message.length <= LOGGED_TEXT_MAX) return serialized;
  const message = cutForLog(serialized.message);
  return { ...serialized, message, stack: serialized.stack.replace(serialized.message, message) };
}

const LEVELS = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 } as const;
type Method = keyof typeof LEVELS;

/** Whether `root` writes lines of `level`: never for a logger that is not pino's (Fastify's stand-in when off). */
function enabled(root: Logger, level: number): boolean {
  return typeof root.levelVal === 'number' && root.levelVal <= level;
}

/**
 * A request's logger, as Fastify's childLoggerFactory makes it: pino's child with the request id, made the first time
 * a line at an enabled level is written (most requests write none but their access line).
 */
export class RequestLog {
  #child: Logger | undefined;

  constructor(
    readonly root: Logger,
    readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  /** pino's child logger, made now if it was not yet. */
  get pino(): Logger {
    this.#child ??= this.root.child(this.bindings, this.options);
    return this.#child;
  }

  get level(): LevelWithSilent {
    return this.pino.level as LevelWithSilent;
  }

  set level(level: LevelWithSilent) {
    this.pino.level = level;
  }

  isLevelEnabled(level: string): boolean {
    return this.root.isLevelEnabled(level);
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): Logger {
    return this.pino.child(bindings, options);
  }

  #write(method: Method, args: unknown[]): void {
    if (!enabled(this.root, LEVELS[method])) return;
    (this.pino[method] as (...line: unknown[]) => void)(...args);
  }

  fatal(...args: unknown[]): void {
    this.#write('fatal', args);
  }
  error(...args: unknown[]): void {
    this.#write('error', args);
  }
  warn(...args: unknown[]): void {
    this.#write('warn', args);
  }
  info(...args: unknown[]): void {
    this.#write('info', args);
  }
  debug(...args: unknown[]): void {
    this.#write('debug', args);
  }
  trace(...args: unknown[]): void {
    this.#write('trace', args);
  }
}

/** Fastify's childLoggerFactory: a RequestLog, unless a route asks for its own level or serializers. */
export function requestLog(
  this: unknown,
  logger: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
  if (options.level !== undefined || options.serializers !== undefined) return logger.child(bindings, options);
  return new RequestLog(logger as Logger, bindings, options) as unknown as FastifyBaseLogger;
}

/**
 * The access line of a request, as pino writes `log.info({ req, res, responseTime }, 'request completed')` with the
 * serializers above: the same keys in the same order, so a reader of the log cannot tell which wrote it.
 */
export function accessLine(fields: AccessFields): string {
  const { time, root, bindings, statusCode, responseTime } = fields;
  let line = `{"level":30,"time":${time}${(root as unknown as Record<symbol, string>)[symbols.chindingsSym]}`;
  for (const key in bindings) {
    const value = bindings[key];
    line += `,${quoted(key)}:${typeof value === 'string' ? quoted(value) : text(value)}`;
  }
  return (
    `${line},"req":{"method":${quoted(cutForLog(fields.method))},"url":${quoted(cutForLog(redactQuery(fields.url)))},` +
    `"remoteAddress":${quoted(cutForLog(fields.ip))}},"res":{"statusCode":${statusCode}},"responseTime":${responseTime},` +
    `"msg":"request completed"}\n`
  );
}

/**
 * A request's time as its line gives it: milliseconds to the microsecond. The digits beyond are the clock's noise, and
 * writing a double of 16 of them took 120 ns where one of 4-7 takes 15.
 */
const responseTime = (reply: FastifyReply) => Math.round(reply.elapsedTime * 1000) / 1000;

/**
 * With `lines` (ACCESS_LOG), one line per request when it is answered, and "incoming request" at `debug`; without,
 * neither. A request that ends in an error ("request errored") is logged either way.
 */
export class AccessLog extends LogController {
  constructor(readonly lines: boolean) {
    super();
  }

  override incomingRequest(request: FastifyRequest): void {
    if (!this.lines || this.isLogDisabled(request)) return;
    request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if ((!error && !this.lines) || this.isLogDisabled(request)) return;
    const log = reply.log as unknown;
    if (!error && log instanceof RequestLog) {
      // The request's own logger was never replaced (tracing binds one to the trace): the line as text.
      if (!enabled(log.root, LEVELS.info)) return;
      const stream = (log.root as unknown as Record<symbol, { write(line: string): void }>)[symbols.streamSym]!;
      const { method, url, ip } = request;
      const fields = {
        time: Date.now(),
        root: log.root,
        bindings: log.bindings,
        method,
        url,
        ip,
        statusCode: reply.statusCode,
        responseTime: responseTime(reply),
      };
      if (stream instanceof BatchedOutput) stream.writeAccess(fields);
      else stream.write(accessLine(fields));
      return;
    }
    const line = { req: request, res: reply, responseTime: responseTime(reply) };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request completed');
  }
}
