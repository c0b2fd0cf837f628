// The PostgreSQL store's read barrier: before a cached page is answered, its owner's version (owner_versions, moved
// by every create and delete in its own transaction) is read from the database, so a write acknowledged by any
// process or instance is seen by the very next list. A request only trusts a check sent after it asked (one already
// sent may have read the database before the write its client just saw acknowledged). The checks are batched by
// event-loop turn: the first request of a turn schedules one check for after the turn's I/O (setImmediate), which
// answers every owner the turn's requests asked for. A check never waits for the one before it (the store pipelines
// them on one connection): waiting made the requests of a turn that began while a check was in flight wait for that
// one's answer and then a whole round trip more.

/** Reads the current versions of `owners`; an owner missing from the answer has version '0'. */
export type ReadVersions = (owners: readonly string[]) => Promise<Map<string, string>>;

interface Waiter {
  owner: string;
  resolve: (version: string) => void;
  reject: (error: unknown) => void;
}

export class ReadBarrier {
  readonly #read: ReadVersions;
  #waiting: Waiter[] = [];

  constructor(read: ReadVersions) {
    this.#read = read;
  }

  /** The owner's version as the database holds it now: read by a check sent after this call. */
  version(owner: string): Promise<string> {
    return new Promise((resolve, reject) => {
      if (this.#waiting.length === 0) setImmediate(() => this.#send());
      this.#waiting.push({ owner, resolve, reject });
    });
  }

  #send(): void {
    const batch = this.#waiting;
    this.#waiting = [];
    const owners = [...new Set(batch.map((waiter) => waiter.owner))];
    this.#read(owners).then(
      (versions) => {
        for (const waiter of batch) waiter.resolve(versions.get(waiter.owner) ?? '0');
      },
      (error: unknown) => {
        for (const waiter of batch) waiter.reject(error);
      },
    );
  }
}
