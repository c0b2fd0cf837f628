// The log's output never holds more than its bound while standard output stalls: lines beyond it are dropped,
// counted on /metrics, and reported in one line once the output drains; at exit what the output still holds is said on
// standard error. A caller-chosen text (a URL, an address) is cut to LOGGED_TEXT_MAX characters in every log line.
import { Writable } from 'node:stream';
import { type LoggerOptions, pino } from 'pino';
import { afterEach, expect, it, vi } from 'vitest';
import {
  accessLine,
  BatchedOutput,
  FLUSH_BYTES,
  FLUSH_MS,
  LOGGED_TEXT_MAX,
  logDrops,
  loggerOptions,
} from '../../src/http/logger.js';
import { redactQuery } from '../../src/http/url-redaction.js';
import { createMetrics } from '../../src/observability/metrics.js';

/** A standard output whose reader stalls until release() is called. */
function stalledOutput() {
  const written: string[] = [];
  const callbacks: (() => void)[] = [];
  const out = new Writable({
    highWaterMark: 1,
    write(chunk, _encoding, done) {
      written.push(String(chunk));
      callbacks.push(done);
    },
  });
  const release = () => {
    for (const done of callbacks.splice(0)) done();
  };
  return { out, written, release };
}

const line = (n: number) => `${JSON.stringify({ n, pad: 'x'.repeat(80) })}\n`;

afterEach(() => {
  vi.restoreAllMocks();
});

/** A standard output that takes every write at once, and the writes it got. */
function takingOutput() {
  const writes: string[] = [];
  const out = new Writable({
    write(chunk, _encoding, done) {
      writes.push(String(chunk));
      done();
    },
  });
  return { out, writes };
}

it('hands lines over together, FLUSH_MS after the first of them, not one write per line', () => {
  vi.useFakeTimers();
  try {
    const { out, writes } = takingOutput();
    const output = new BatchedOutput(out);
    for (let n = 0; n < 3; n++) output.write(line(n));
    vi.advanceTimersByTime(FLUSH_MS - 1);
    expect(writes).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(writes).toEqual([line(0) + line(1) + line(2)]);
    output.write(line(3));
    vi.advanceTimersByTime(FLUSH_MS);
    expect(writes).toEqual([line(0) + line(1) + line(2), line(3)]);
  } finally {
    vi.useRealTimers();
  }
});

it('hands lines over at once when FLUSH_BYTES of them wait, and whatever waits at exit', () => {
  vi.useFakeTimers();
  try {
    const { out, writes } = takingOutput();
    const output = new BatchedOutput(out);
    let waiting = 0;
    for (let n = 0; waiting < FLUSH_BYTES; n++) {
      output.write(line(n));
      waiting += line(n).length;
    }
    expect(writes.join('').length).toBe(waiting);
    output.write(line(-1));
    output.exit();
    expect(writes.at(-1)).toBe(line(-1));
  } finally {
    vi.useRealTimers();
  }
});

it('writes an access line out with its batch, in the order the lines came, as accessLine writes it', () => {
  vi.useFakeTimers();
  try {
    const { out, writes } = takingOutput();
    const output = new BatchedOutput(out);
    const root = pino({}, output);
    const fields = (n: number) => ({
      time: 1_700_000_000_000 + n,
      root,
      bindings: { reqId: `r-${n}` },
      method: 'GET',
      url: `/plants?limit=${n}&access_token=pst_secret`,
      ip: '127.0.0.1',
      statusCode: 200,
      responseTime: 0.25,
    });
    const text = (n: number) => accessLine(fields(n));
    output.writeAccess(fields(1));
    output.write(line(2));
    output.writeAccess(fields(3));
    output.writeAccess(fields(4));
    expect(writes).toEqual([]);
    vi.advanceTimersByTime(FLUSH_MS);
    expect(writes).toEqual([text(1) + line(2) + text(3) + text(4)]);
    expect(writes[0]).not.toContain('pst_secret');
    // Access lines alone are handed over once FLUSH_BYTES of them could wait.
    let n = 0;
    while (writes.length === 1) output.writeAccess(fields(n++));
    expect(n).toBeLessThanOrEqual(Math.ceil(FLUSH_BYTES / text(0).length));
    expect(writes[1]).toBe(Array.from({ length: n }, (_, i) => text(i)).join(''));
  } finally {
    vi.useRealTimers();
  }
});

it('drops access lines beyond its bound while the output stalls, and counts them', () => {
  const { out, written } = stalledOutput();
  const output = new BatchedOutput(out, 4_000);
  const root = pino({}, output);
  const before = logDrops.lines;
  const fields = { time: 1, root, bindings: { reqId: 'r' }, method: 'GET', url: '/plants', ip: '::1' };
  for (let n = 0; n < 40; n++) output.writeAccess({ ...fields, statusCode: 200, responseTime: n });
  void output.drained(60_000);
  const taken = written.join('').split('\n').filter(Boolean).length;
  expect(taken).toBeGreaterThan(0);
  expect(written.join('').length).toBeLessThanOrEqual(4_000);
  expect(logDrops.lines - before).toBe(40 - taken);
});

it('drops the lines beyond its bound while the output stalls, counts them, and says so once it drains', async () => {
  const { out, written, release } = stalledOutput();
  const output = new BatchedOutput(out, 10 * line(0).length);
  const before = logDrops.lines;
  for (let n = 0; n < 15; n++) output.write(line(n));
  expect(logDrops.lines - before).toBe(5);
  void output.drained(60_000);
  expect(written.join('')).toBe(Array.from({ length: 10 }, (_, n) => line(n)).join(''));

  // Still stalled: more lines are dropped too.
  output.write(line(15));
  expect(logDrops.lines - before).toBe(6);

  release();
  await new Promise((resolve) => setImmediate(resolve));
  const drained = output.drained(60_000);
  release();
  await drained;
  const report = JSON.parse(written.at(-1)!);
  expect(report).toMatchObject({ level: 40, dropped: 6, msg: expect.stringContaining('dropped') });
  expect(Date.parse(report.since)).toBeLessThanOrEqual(Date.now());

  // The log flows again: the next line is written, nothing more is dropped or reported twice.
  output.write(line(16));
  const again = output.drained(60_000);
  release();
  await again;
  expect(written.at(-1)).toBe(line(16));
  expect(logDrops.lines - before).toBe(6);
});

it('counts the dropped lines on /metrics', async () => {
  const { out } = stalledOutput();
  const output = new BatchedOutput(out, 1);
  output.write(line(1));
  output.write(line(2));
  const text = await createMetrics().registry.metrics();
  expect(text).toContain(`plant_store_log_lines_dropped_total ${logDrops.lines}\n`);
  expect(logDrops.lines).toBeGreaterThanOrEqual(2);
});

it('at exit, says on standard error how much of the log the output did not take', () => {
  const { out } = stalledOutput();
  const output = new BatchedOutput(out, 2 * line(0).length);
  const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  output.write(line(1));
  output.write(line(2));
  output.write(line(3));
  output.exit();
  expect(stderr).toHaveBeenCalledTimes(1);
  const message = String(stderr.mock.calls[0]?.[0]);
  expect(message).toContain(`did not take the last ${2 * line(0).length} bytes`);
  expect(message).toContain('1 lines dropped since');
});

it('stays silent at exit when the output took everything', () => {
  const output = new BatchedOutput(new Writable({ write: (_chunk, _encoding, done) => done() }));
  const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  output.write(line(1));
  output.exit();
  expect(stderr).not.toHaveBeenCalled();
});

const LONG = `/plants/${'a'.repeat(12_000)}?access_token=pst_secret`;
const CUT = `...(${redactQuery(LONG).length} characters)`;

it('cuts a long URL and address in the access line', () => {
  const root = pino({ level: 'info' });
  const written = accessLine({
    time: 0,
    root,
    bindings: { reqId: 'r' },
    method: 'GET',
    url: LONG,
    ip: 'b'.repeat(5_000),
    statusCode: 404,
    responseTime: 1,
  });
  const parsed = JSON.parse(written);
  expect(parsed.req.url).toBe(`/plants/${'a'.repeat(LOGGED_TEXT_MAX - 8)}${CUT}`);
  expect(parsed.req.remoteAddress).toMatch(/^b{1024}\.\.\.\(5000 characters\)$/);
  expect(written.length).toBeLessThan(3 * LOGGED_TEXT_MAX);
});

it("cuts a long URL in every line that logs the request (pino's req serializer)", () => {
  const options = loggerOptions('info') as { serializers: { req: (request: unknown) => { url: string } } };
  const serialized = options.serializers.req({ method: 'GET', url: LONG, ip: '127.0.0.1' });
  expect(serialized.url).toBe(`/plants/${'a'.repeat(LOGGED_TEXT_MAX - 8)}${CUT}`);
});

/** A pino logger with the service's options, writing to `lines`. */
function serviceLogger(lines: string[]) {
  const { stream: _stream, ...options } = loggerOptions('info') as LoggerOptions & { stream: unknown };
  return pino(
    options,
    new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    }),
  );
}

it("cuts a line's other long texts, and a long error message, but leaves short ones as they are", async () => {
  const lines: string[] = [];
  const logger = serviceLogger(lines);
  const reason = `unknown field ${'f'.repeat(15_000)}`;
  logger.info({ status: 400, reason, short: 'kept' }, 'request refused');
  logger.error({ err: new Error(`no such plant ${'p'.repeat(15_000)}`) }, 'request failed');
  await new Promise((resolve) => setImmediate(resolve));
  const [refused, failed] = lines.map((text) => JSON.parse(text));
  expect(refused.reason).toBe(`${reason.slice(0, LOGGED_TEXT_MAX)}...(${reason.length} characters)`);
  expect(refused.short).toBe('kept');
  expect(failed.err.message).toMatch(/^no such plant p+\.\.\.\(15014 characters\)$/);
  expect(failed.err.message).toHaveLength(LOGGED_TEXT_MAX + '...(15014 characters)'.length);
  expect(failed.err.stack.split('\n')[0]).toBe(`Error: ${failed.err.message}`);
  expect(lines.every((text) => text.length < 4 * LOGGED_TEXT_MAX)).toBe(true);
});
