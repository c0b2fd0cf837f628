// What the proxy saw break the contract: every violation is counted by kind (direction, operation, rule), and the
// first few of each kind keep a sample, so a long session through the proxy holds bounded memory. A sample quotes
// what a client or the upstream sent: it is cut short and its control characters are escaped, as the report prints it.
import { escapeControls } from '../control-characters.js';

export type Direction = 'request' | 'response';

export interface Violation {
  direction: Direction;
  /** The operationId, or `(undeclared)` for a path or method the contract does not have. */
  operation: string;
  rule: string;
  /** The request, the answer and what broke, in words. */
  sample: string;
}

/** Samples kept per kind of violation; later ones are counted only. */
export const SAMPLES_PER_KIND = 5;

const MAX_SAMPLE_CHARS = 1000;

export interface ProxyReport {
  upstream: string;
  startedAt: string;
  stoppedAt: string;
  /** Requests forwarded (CORS preflights included). */
  requests: number;
  /** Bodies forwarded unchecked because the proxy's copies held --max-copy-bytes at the time. */
  unchecked: number;
  /** Violations seen, samples or not. */
  violationCount: number;
  /** Each kind of violation seen, with how many times. */
  kinds: { direction: Direction; operation: string; rule: string; count: number }[];
  /** The first samples of each kind, in the order seen. */
  violations: Violation[];
}

export class Violations {
  requests = 0;
  /** Bodies forwarded unchecked because the copies under way held the whole budget. */
  unchecked = 0;
  private total = 0;
  private readonly counts = new Map<string, { direction: Direction; operation: string; rule: string; count: number }>();
  private readonly samples: Violation[] = [];

  add(direction: Direction, operation: string, rule: string, sample: string): void {
    this.total++;
    const key = `${direction}\u0000${operation}\u0000${rule}`;
    let kind = this.counts.get(key);
    // Kinds are few whatever is sent: the contract's operations (an undeclared path or method is one name) by rules.
    if (!kind) {
      kind = { direction, operation, rule, count: 0 };
      this.counts.set(key, kind);
    }
    kind.count++;
    if (kind.count > SAMPLES_PER_KIND) return;
    const text = escapeControls(sample);
    this.samples.push({
      direction,
      operation,
      rule,
      sample: text.length > MAX_SAMPLE_CHARS ? `${text.slice(0, MAX_SAMPLE_CHARS)}...` : text,
    });
  }

  get count(): number {
    return this.total;
  }

  report(upstream: string, startedAt: Date): ProxyReport {
    return {
      upstream,
      startedAt: startedAt.toISOString(),
      stoppedAt: new Date().toISOString(),
      requests: this.requests,
      unchecked: this.unchecked,
      violationCount: this.total,
      kinds: [...this.counts.values()].map((kind) => ({ ...kind })),
      violations: [...this.samples],
    };
  }

  /** The summary people read: a line per kind, then one sample of each. */
  summary(): string[] {
    const lines = [`${this.requests} requests forwarded, ${this.total} violations of the contract`];
    if (this.unchecked > 0) {
      lines.push(`${this.unchecked} bodies forwarded unchecked: the copies under way held --max-copy-bytes`);
    }
    for (const kind of this.counts.values()) {
      lines.push(`  ${kind.count} x ${kind.direction} ${kind.operation} ${kind.rule}`);
      const sample = this.samples.find(
        (s) => s.direction === kind.direction && s.operation === kind.operation && s.rule === kind.rule,
      );
      if (sample) lines.push(`      e.g. ${sample.sample}`);
    }
    return lines;
  }
}
