// A decorator around any Store: times each repository call into the metrics and, with tracing on, runs it inside a
// child span. It sits outside the engines, so SQLite and PostgreSQL are measured the same way, and it finds the
// store's methods at run time: a method the Store gains is measured with no line here. The per-call path is built
// once per method, so a call costs what a hand-written wrapper would.
import type { Store, TokenRepository } from '../store/store.js';
import { StoreUnavailableError } from '../store/store.js';
import type { Metrics } from './metrics.js';

/** Runs `call` inside a span named `name` (tracing.ts provides it when tracing is on). */
export type SpanAround = <T>(name: string, attributes: Record<string, string>, call: () => Promise<T>) => Promise<T>;

type CachedLookup = NonNullable<TokenRepository['cachedByHash']>;
type Call = (...args: unknown[]) => Promise<unknown>;
type Recorder = { done(start: number): void; failed(start: number, error: unknown): void };

/** Calls of `target[key]`, found at each call (as the caller would find it). */
function callOf(target: object, key: string): Call {
  return (...args) => (target as Record<string, Call>)[key]!.apply(target, args);
}

/**
 * Calls of `target[key]`, each recorded when its promise settles. The caller awaits the store's own promise: timing it
 * adds no step to the caller's wait, and a call allocates nothing beyond its arguments and the two settle callbacks.
 */
function timedCall({ done, failed }: Recorder, target: object, key: string): Call {
  return (...args) => {
    const start = performance.now();
    const result = (target as Record<string, Call>)[key]!.apply(target, args);
    result.then(
      () => done(start),
      (error: unknown) => failed(start, error),
    );
    return result;
  };
}

/**
 * The repositories called outside requests (the delivery worker's poll every 250 ms, the idempotency sweeper): timed,
 * not traced, or each poll would start a new trace.
 */
const UNTRACED: ReadonlySet<string> = new Set(['webhooks', 'idempotency']);

function errorType(error: unknown): string {
  if (error instanceof StoreUnavailableError) return 'unavailable';
  return error instanceof Error ? error.name : 'unknown';
}

export function instrumentStore(store: Store, metrics: Metrics | undefined, span: SpanAround | undefined): Store {
  const engine = store.kind;
  /** Records calls of one operation into its series (made once, here), counting the failed ones by error. */
  const recorder = (metrics: Metrics, operation: string): Recorder => {
    const labels = { engine, operation };
    const series = metrics.storeDuration.series(`${engine} ${operation}`, () => labels);
    // Present at 0 from the start (a dashboard shows 0, not "no data"); other error types appear when they happen.
    metrics.storeErrors.inc({ ...labels, error_type: 'unavailable' }, 0);
    return {
      done: (start: number) => series.observe((performance.now() - start) / 1000),
      failed: (start: number, error: unknown) => {
        series.observe((performance.now() - start) / 1000);
        metrics.storeErrors.inc({ ...labels, error_type: errorType(error) });
      },
    };
  };
  /** `target[key]` timed as `operation` (with metrics), inside a span of its name (with tracing, where traced). */
  const measured = (operation: string, target: object, key: string, traced = true): Call => {
    const timed = metrics ? timedCall(recorder(metrics, operation), target, key) : callOf(target, key);
    if (!span || !traced) return timed;
    // The span's name and attributes are made once per operation, so a call allocates neither.
    const name = `store ${operation}`;
    const attributes = { 'db.system.name': engine, 'db.operation.name': operation };
    return (...args) => span(name, attributes, () => timed(...args));
  };
  /**
   * The token cache's answer, timed as a token lookup when it answers (with its failures counted as the lookup's):
   * a miss is followed by findByHash, which is timed itself. Never traced: it does not leave the process.
   */
  const cachedTokens = (lookup: CachedLookup): CachedLookup => {
    if (!metrics) return lookup;
    const { done, failed } = recorder(metrics, 'tokens.findByHash');
    return (secretHash) => {
      const start = performance.now();
      try {
        const found = lookup(secretHash);
        if (found) done(start);
        return found;
      } catch (error) {
        failed(start, error);
        throw error;
      }
    };
  };
  /** Every method of one repository, timed, and traced unless the repository is called outside requests. */
  const wrap = (prefix: string, repository: object): object => {
    const methods = repository as Record<string, (...args: unknown[]) => Promise<unknown>>;
    const traced = !UNTRACED.has(prefix);
    const wrapped: Record<string, unknown> = {};
    for (const name of methodNames(repository)) {
      const method = `${prefix}.${name}`;
      // Two methods are no call to the database: the token cache answers synchronously, and onQueued registers a
      // listener.
      if (method === 'tokens.cachedByHash')
        wrapped[name] = cachedTokens(methods[name]!.bind(repository) as unknown as CachedLookup);
      else if (method === 'webhooks.onQueued') wrapped[name] = methods[name]!.bind(repository);
      else wrapped[name] = measured(method, repository, name, traced);
    }
    return wrapped;
  };
  // Every member of the store, found at run time, so a method or repository the Store gains needs no line here: each
  // repository wrapped, ping timed, the rest (kind, migrate, close, the optional hooks) passed on.
  const instrumented: Record<string, unknown> = {};
  for (const [member, value] of Object.entries(store)) {
    if (member === 'ping') instrumented[member] = measured('ping', store, member);
    else if (typeof value === 'function') instrumented[member] = value.bind(store);
    else if (typeof value === 'object' && value !== null) instrumented[member] = wrap(member, value);
    else instrumented[member] = value;
  }
  return instrumented as unknown as Store;
}

/** The names of an object's methods: its own and its prototypes' (a class keeps them there), as found at run time. */
export function methodNames(object: object): string[] {
  const names = new Set<string>();
  for (let at = object; at !== null && at !== Object.prototype; at = Object.getPrototypeOf(at)) {
    for (const name of Object.getOwnPropertyNames(at)) {
      if (name !== 'constructor' && typeof Reflect.get(object, name) === 'function') names.add(name);
    }
  }
  return [...names];
}
