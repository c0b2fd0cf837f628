// A decorator around any Store: times each repository call into the metrics and, with tracing on, runs it inside a
// child span. It sits outside the engines, so SQLite and PostgreSQL are measured the same way.
import type {
  IdempotencyRepository,
  PlantRepository,
  Store,
  TokenRepository,
  WebhookRepository,
} from '../store/store.js';
import { StoreUnavailableError } from '../store/store.js';
import type { Metrics } from './metrics.js';

/** Runs `call` inside a span named `name` (tracing.ts provides it when tracing is on). */
export type SpanAround = <T>(name: string, attributes: Record<string, string>, call: () => Promise<T>) => Promise<T>;

type Methods<T> = { [K in keyof T]: (...args: never[]) => Promise<unknown> };

function errorType(error: unknown): string {
  if (error instanceof StoreUnavailableError) return 'unavailable';
  return error instanceof Error ? error.name : 'unknown';
}

export function instrumentStore(store: Store, metrics: Metrics | undefined, span: SpanAround | undefined): Store {
  const engine = store.kind;
  /** Records calls of one operation into its series (made once, here), counting the failed ones by error. */
  const recorder = (metrics: Metrics, operation: string) => {
    const labels = { engine, operation };
    const series = metrics.storeDuration.series(`${engine} ${operation}`, () => labels);
    return {
      done: (start: number) => series.observe((performance.now() - start) / 1000),
      failed: (start: number, error: unknown) => {
        series.observe((performance.now() - start) / 1000);
        metrics.storeErrors.inc({ ...labels, error_type: errorType(error) });
      },
    };
  };
  /** Times calls of one operation. */
  const timer = (operation: string) => {
    if (!metrics) return <T>(call: () => Promise<T>) => call();
    const { done, failed } = recorder(metrics, operation);
    return <T>(call: () => Promise<T>): Promise<T> => {
      const start = performance.now();
      const result = call();
      // The caller awaits the store's own promise: timing it adds no step to the caller's wait.
      result.then(
        () => done(start),
        (error: unknown) => failed(start, error),
      );
      return result;
    };
  };
  // The series, labels and span attributes are made once per operation, so a call allocates none of them.
  const around = (operation: string, traced = true) => {
    const timed = timer(operation);
    if (!traced) return timed;
    const name = `store ${operation}`;
    const attributes = { 'db.system.name': engine, 'db.operation.name': operation };
    return <T>(call: () => Promise<T>): Promise<T> => (span ? span(name, attributes, () => timed(call)) : timed(call));
  };
  // Every method by name (a method the interface gains is a compile error here until it is listed).
  const wrap = <R extends object>(prefix: string, repository: R, names: Record<keyof R, true>, traced = true): R => {
    const methods = repository as Methods<R>;
    const wrapped: Record<string, unknown> = {};
    for (const name of Object.keys(names) as (keyof R & string)[]) {
      const measured = around(`${prefix}.${name}`, traced);
      wrapped[name] = (...args: never[]) => measured(() => methods[name].apply(repository, args));
    }
    return wrapped as R;
  };
  /**
   * The token cache's answer, timed as a token lookup when it answers (with its failures counted as the lookup's):
   * a miss is followed by findByHash, which is timed itself. Never traced: it does not leave the process.
   */
  const cachedTokens = (lookup: NonNullable<TokenRepository['cachedByHash']>): TokenRepository['cachedByHash'] => {
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
  const measuredPing = around('ping');
  return {
    kind: store.kind,
    ...(store.cacheStats ? { cacheStats: store.cacheStats.bind(store) } : {}),
    ...(store.poolStats ? { poolStats: store.poolStats.bind(store) } : {}),
    ...(store.beginRequest ? { beginRequest: store.beginRequest.bind(store) } : {}),
    plants: wrap<PlantRepository>('plants', store.plants, { create: true, createOnce: true, list: true, delete: true }),
    tokens: {
      ...wrap<Omit<TokenRepository, 'cachedByHash'>>('tokens', store.tokens, {
        insert: true,
        findByHash: true,
        list: true,
        revoke: true,
      }),
      ...(store.tokens.cachedByHash
        ? { cachedByHash: cachedTokens(store.tokens.cachedByHash.bind(store.tokens)) }
        : {}),
    },
    // The delivery worker's calls run outside any request: timed, but not traced (a poll every 250 ms would
    // otherwise start a new trace each time).
    webhooks: {
      ...wrap<Omit<WebhookRepository, 'onQueued'>>(
        'webhooks',
        store.webhooks,
        {
          addSubscription: true,
          listSubscriptions: true,
          removeSubscription: true,
          rotateSecret: true,
          enableSubscription: true,
          hasDue: true,
          claimDue: true,
          settle: true,
          expire: true,
          queues: true,
          listDeliveries: true,
          replay: true,
          prune: true,
        },
        false,
      ),
      onQueued: (listener) => store.webhooks.onQueued(listener),
    },
    // The sweeper runs outside requests, like the delivery worker: timed, not traced.
    idempotency: wrap<IdempotencyRepository>('idempotency', store.idempotency, { remember: true, sweep: true }, false),
    migrate: () => store.migrate(),
    ping: () => measuredPing(() => store.ping()),
    close: () => store.close(),
  };
}
