// The PostgreSQL store's read barrier: before a cached page is answered, its owner's version (owner_versions, moved
// by every create and delete in its own transaction) is read from the database, so a write acknowledged by any
// process or instance is seen by the very next list. The checks are batched: one statement answers every owner that
// requests asked for while the previous check was in flight. A request only trusts a check sent after it asked (one
// already in flight may have read the database before the write its client just saw acknowledged), so at most one
// check is in flight and the next one goes as soon as it returns.

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
  #inFlight = false;

  constructor(read: ReadVersions) {
    this.#read = read;
  }

  /** The owner's version as the database holds it now: read by a check sent after this call. */
  version(owner: string): Promise<string> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ owner, resolve, reject });
      if (!this.#inFlight) this.#send();
    });
  }

  #send(): void {
    const batch = this.#waiting;
    this.#waiting = [];
    this.#inFlight = true;
    const owners = [...new Set(batch.map((waiter) => waiter.owner))];
    this.#read(owners).then(
      (versions) => {
        for (const waiter of batch) waiter.resolve(versions.get(waiter.owner) ?? '0');
        this.#next();
      },
      (error: unknown) => {
        for (const waiter of batch) waiter.reject(error);
        this.#next();
      },
    );
  }

  #next(): void {
    this.#inFlight = false;
    if (this.#waiting.length > 0) this.#send();
  }
}
