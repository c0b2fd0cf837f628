// One line per outage rather than one per failed attempt, for whatever retries on its own: see FailureRun.

export interface RunLog {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

/**
 * Says a run of failures once with its cause (the first), then one line per `intervalMs` with how many followed,
 * and one line when it ends: an outage (the database for the webhook worker, the identity provider's JWKS) is visible
 * without a stack trace on every attempt.
 */
export class FailureRun {
  #failures = 0;
  #reported = 0;
  #since = 0;
  #lastSummary = 0;

  constructor(
    private readonly log: RunLog,
    private readonly what: string,
    private readonly intervalMs: number,
    /** What happens meanwhile, said with the first failure. */
    private readonly meanwhile: string,
  ) {}

  failed(error: unknown, now = Date.now()): void {
    this.#failures++;
    if (this.#failures === 1) {
      this.#since = this.#lastSummary = now;
      this.#reported = 1;
      this.log.warn({ err: error }, `${this.what}; ${this.meanwhile} (a summary follows while it lasts)`);
      return;
    }
    if (now - this.#lastSummary >= this.intervalMs) {
      const message = error instanceof Error ? error.message : String(error);
      this.log.warn(
        { failures: this.#failures - this.#reported, failuresInAll: this.#failures, sinceMs: now - this.#since },
        `${this.what}: still failing, ${this.#failures - this.#reported} more failures in the last ${Math.round((now - this.#lastSummary) / 1000)} s (${message})`,
      );
      this.#reported = this.#failures;
      this.#lastSummary = now;
    }
  }

  succeeded(now = Date.now()): void {
    if (this.#failures === 0) return;
    this.log.info(
      { failuresInAll: this.#failures, sinceMs: now - this.#since },
      `${this.what}: recovered after ${this.#failures} failures in ${Math.round((now - this.#since) / 1000)} s`,
    );
    this.#failures = 0;
  }
}
