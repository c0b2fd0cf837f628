// A copy of a body as it streams through, for the checks: kept up to a cap, only counted beyond it. The bytes that
// are forwarded are never these: the proxy passes on what it received, as it received it.

const utf8 = new TextDecoder('utf-8', { fatal: true });

export class CappedBody {
  private chunks: Buffer[] = [];
  /** Bytes seen, kept or not. */
  bytes = 0;

  constructor(readonly cap: number) {}

  push(chunk: Buffer): void {
    this.bytes += chunk.length;
    if (this.bytes <= this.cap) this.chunks.push(chunk);
    else this.chunks = [];
  }

  /** More bytes came than the cap: the copy was let go, and the body goes unchecked. */
  get overflowed(): boolean {
    return this.bytes > this.cap;
  }

  /** The body as text; undefined when its bytes are not UTF-8 (JSON's only encoding). */
  text(): string | undefined {
    try {
      return utf8.decode(Buffer.concat(this.chunks));
    } catch {
      return undefined;
    }
  }
}
