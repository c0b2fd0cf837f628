// The open-loop generator's byte-level answer reader (tools/bench/src/http-answer-reader.ts): every answer counted
// with its status, however the bytes are split into chunks, Content-Length read in any case.
import { describe, expect, it } from 'vitest';
import { AnswerReader, contentLengthOf } from '../src/http-answer-reader.js';

const answer = (status: string, headers: string, body: string) => `HTTP/1.1 ${status}\r\n${headers}\r\n${body}`;
const stream = [
  answer('200 OK', `Content-Type: application/json\r\nContent-Length: 13\r\n`, '{"name":"ab"}'),
  answer('201 Created', `content-length:2\r\nx-request-id: 7\r\n`, '{}'),
  answer('204 No Content', `Date: now\r\n`, ''),
  answer('409 Conflict', `CONTENT-LENGTH:   21\r\n`, '{"error":409,"m":"x"}'),
].join('');

function statuses(chunks: Buffer[]): number[] {
  const seen: number[] = [];
  const reader = new AnswerReader((status) => seen.push(status));
  for (const chunk of chunks) reader.feed(chunk);
  return seen;
}

describe('the answer reader', () => {
  it('counts every answer in one chunk, with its status', () => {
    expect(statuses([Buffer.from(stream)])).toEqual([200, 201, 204, 409]);
  });

  it('counts the same answers however the bytes are split', () => {
    const bytes = Buffer.from(stream);
    for (let size = 1; size <= bytes.length; size++) {
      const chunks: Buffer[] = [];
      for (let at = 0; at < bytes.length; at += size) chunks.push(bytes.subarray(at, at + size));
      expect(statuses(chunks), `chunks of ${size} bytes`).toEqual([200, 201, 204, 409]);
    }
  });

  it('counts an answer only once its whole body has come', () => {
    const seen: number[] = [];
    const reader = new AnswerReader((status) => seen.push(status));
    reader.feed(Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n12345'));
    expect(seen).toEqual([]);
    reader.feed(Buffer.from('6789'));
    expect(seen).toEqual([]);
    reader.feed(Buffer.from('0HTTP/1.1 500 Internal'));
    expect(seen).toEqual([200]);
  });
});

describe('Content-Length', () => {
  const head = (text: string) => {
    const bytes = Buffer.from(`${text}\r\n\r\n`);
    return contentLengthOf(bytes, 0, bytes.indexOf('\r\n\r\n'));
  };
  it('is read from the header in any case, spaces skipped', () => {
    expect(head('HTTP/1.1 200 OK\r\nContent-Length: 4312')).toBe(4312);
    expect(head('HTTP/1.1 200 OK\r\nA: b\r\ncontent-LENGTH:\t7')).toBe(7);
  });
  it('is 0 when the head has none, and no other header is taken for it', () => {
    expect(head('HTTP/1.1 204 No Content\r\nDate: x')).toBe(0);
    expect(head('HTTP/1.1 200 OK\r\nX-Content-Length: 9')).toBe(0);
    expect(head('HTTP/1.1 200 OK\r\nContent-Lengt: 9')).toBe(0);
  });
});
