// The open-loop generator's HTTP/1.1 answer reader: counts answers off a connection's bytes without making strings.
// It finds each head's end (\r\n\r\n), reads the status from bytes 9-11 and Content-Length by scanning the head's
// bytes, then skips that many body bytes, across chunks as they come. Every server the bench drives sets
// Content-Length (no chunked answers), and HTTP/1.1 answers on one connection come back in order.

const HEAD_END = Buffer.from('\r\n\r\n');
const CONTENT_LENGTH = Buffer.from('content-length:');

/** The status code of the answer whose status line starts at `start` ("HTTP/1.1 200 ..."). */
function statusAt(bytes: Buffer, start: number): number {
  return (bytes[start + 9]! - 48) * 100 + (bytes[start + 10]! - 48) * 10 + (bytes[start + 11]! - 48);
}

/** The Content-Length of the head in bytes[start, end) (0 when it has none), its name matched in any case. */
export function contentLengthOf(bytes: Buffer, start: number, end: number): number {
  for (let line = bytes.indexOf(10, start); line >= 0 && line < end; line = bytes.indexOf(10, line + 1)) {
    let i = 0;
    for (; i < CONTENT_LENGTH.length && line + 1 + i < end; i++) {
      const byte = bytes[line + 1 + i]!;
      const lower = byte >= 65 && byte <= 90 ? byte | 32 : byte;
      if (lower !== CONTENT_LENGTH[i]) break;
    }
    if (i < CONTENT_LENGTH.length) continue;
    let at = line + 1 + i;
    while (bytes[at] === 32 || bytes[at] === 9) at++;
    let length = 0;
    for (; at < end && bytes[at]! >= 48 && bytes[at]! <= 57; at++) length = length * 10 + bytes[at]! - 48;
    return length;
  }
  return 0;
}

/** One connection's reader: feed it each chunk; it calls `onAnswer` with the status of every complete answer. */
export class AnswerReader {
  readonly #onAnswer: (status: number) => void;
  /** A head that has not ended yet, kept until the rest of it comes. */
  #head: Buffer | undefined;
  /** Body bytes of the current answer still to come, and that answer's status. */
  #skip = 0;
  #status = 0;

  constructor(onAnswer: (status: number) => void) {
    this.#onAnswer = onAnswer;
  }

  feed(chunk: Buffer): void {
    let offset = 0;
    if (this.#skip > 0) {
      if (chunk.length < this.#skip) {
        this.#skip -= chunk.length;
        return;
      }
      offset = this.#skip;
      this.#skip = 0;
      this.#onAnswer(this.#status);
    }
    let bytes = chunk;
    if (this.#head) {
      bytes = Buffer.concat([this.#head, chunk.subarray(offset)]);
      offset = 0;
      this.#head = undefined;
    }
    while (offset < bytes.length) {
      const end = bytes.indexOf(HEAD_END, offset);
      if (end < 0) {
        this.#head = Buffer.from(bytes.subarray(offset));
        return;
      }
      const status = statusAt(bytes, offset);
      const next = end + 4 + contentLengthOf(bytes, offset, end);
      if (next > bytes.length) {
        this.#skip = next - bytes.length;
        this.#status = status;
        return;
      }
      this.#onAnswer(status);
      offset = next;
    }
  }
}
