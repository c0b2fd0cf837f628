// The PostgreSQL store's read barrier: a cached page is answered once its owner's version, read by a check sent after
// the request asked, is unchanged, so any instance's acknowledged write is seen by the next list. Checks are batched
// per event-loop turn and pipelined on one connection, never waiting for the one before.

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
