// A copy of a body as it streams through, for the checks: kept up to a cap, only counted beyond it, and held within a
// budget all copies under way share, so memory stays bounded however many exchanges run at once. The bytes that are
// forwarded are never these: the proxy passes on what it received, as it received it.

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The bytes all copies under way may hold together. */
export class CopyBudget {
  private used = 0;

  constructor(readonly limit: number) {}

  take(bytes: number): boolean {
    if (this.used + bytes > this.limit) return false;
    this.used += bytes;
    return true;
  }

  give(bytes: number): void {
    this.used -= bytes;
  }
}

export class CappedBody {
  private chunks: Buffer[] = [];
  private held = 0;
  /** Bytes seen, kept or not. */
  bytes = 0;
  /** Why the copy was let go: the body is over the cap, or the budget was in use by other copies. */
  dropped: 'cap' | 'budget' | undefined;

  constructor(
    readonly cap: number,
    private readonly budget: CopyBudget,
  ) {}

  push(chunk: Buffer): void {
    this.bytes += chunk.length;
    if (this.dropped) return;
    if (this.bytes > this.cap) this.drop('cap');
    else if (!this.budget.take(chunk.length)) this.drop('budget');
    else {
      this.chunks.push(chunk);
      this.held += chunk.length;
    }
  }

  /** Gives the copy's bytes back to the budget (again and again: only what is held is given back). */
  release(): void {
    this.budget.give(this.held);
    this.held = 0;
    this.chunks = [];
  }

  private drop(why: 'cap' | 'budget'): void {
    this.dropped = why;
    this.release();
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
