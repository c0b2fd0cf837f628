// Configuration: read from the environment once, at start-up, validated into a frozen object that is passed in.
// A bad value stops start-up with a message naming the variable and what it accepts.
import { isIP } from 'node:net';
import { DEFAULT_PAGE_CACHE_BYTES } from './store/cache/page-cache.js';
import { DATABASE_URL_FORMS, engineOf } from './store/open-store.js';
import { parsePostgresUrl } from './store/postgres/multi-host-url.js';
import { DEFAULT_POOL_SIZE } from './store/postgres/pool-size.js';

/**
 * The deadline of each wait on the database (a pooled connection, a statement, a lock): 20% of the request timeout.
 * A request makes two calls (the token, then the operation), each at most two waits, so a locked table or an
 * exhausted pool answers 503 within REQUEST_TIMEOUT_MS with room to spare.
 */
export function databaseTimeoutMs(requestTimeoutMs: number): number {
  return Math.max(50, Math.floor(requestTimeoutMs * 0.2));
}

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

/** Verification of identity-provider JWTs; exactly one of jwksUrl, publicKey and secret is set. */
export interface JwtConfig {
  readonly jwksUrl?: string;
  readonly publicKey?: string;
  readonly secret?: string;
  readonly algorithms?: readonly string[];
  readonly issuer: string;
  readonly audience: string;
  readonly clockToleranceSec: number;
  /** Longest lifetime (exp - iat, or exp - now without iat) a token may have, in seconds. */
  readonly maxLifetimeSec: number;
  /** Least time between two JWKS fetches, even for unknown key ids (protects the identity provider). */
  readonly jwksCooldownMs: number;
}

export interface Config {
  readonly host: string;
  readonly port: number;
  /** A URL one of the store engines takes (store/open-store.ts): `sqlite:<path>`, `postgres://...`, `memory:`, ... */
  readonly databaseUrl: string;
  /** Where databaseUrl came from: the environment, or the default (DATABASE_URL unset or empty). */
  readonly databaseUrlFrom: 'DATABASE_URL' | 'default';
  /**
   * PostgreSQL: the same database reached directly (DATABASE_DIRECT_URL), for what needs a session when DATABASE_URL
   * is a transaction pooler: migrations and the change feed's LISTEN; null runs them on DATABASE_URL.
   */
  readonly databaseDirectUrl: string | null;
  /** SQLite: share one commit (one fsync) among concurrent writes; false commits each write alone. */
  readonly sqliteGroupCommit: boolean;
  /** Connections in the PostgreSQL pool (per process). */
  readonly databasePoolSize: number;
  /** Redis URL shared by instances for rate limits; null keeps the counters in this process. */
  readonly redisUrl: string | null;
  /** JWT bearer tokens from an identity provider, besides the CLI's tokens; null when not configured. */
  readonly jwt: JwtConfig | null;
  readonly logLevel: LogLevel;
  /**
   * ACCESS_LOG: a line per request when it is answered (at `info`; at `debug` one more when it arrives). Off by
   * default: the metrics count every answer by route and status, and the line costs the hot read about a tenth of
   * its CPU (docs/configuration.md says what is given up).
   */
  readonly accessLog: boolean;
  /**
   * Requests per principal per window (`max`, 0 for no such limit), and per client address for requests without a
   * valid token (`anonymousMax`, 0 for no such limit); null when both are 0. Each budget is switched off on its own.
   */
  readonly rateLimit: { readonly max: number; readonly windowMs: number; readonly anonymousMax: number } | null;
  /** Event-loop delay in ms beyond which requests are shed with 503 (load shedding); 0 turns it off. */
  readonly maxEventLoopDelayMs: number;
  /** READ_ONLY: creates and deletes answer 503 with Retry-After (a maintenance window, the move to PostgreSQL). */
  readonly readOnly: boolean;
  /** SQLite: the most bytes of cached pages (JSON text) kept in memory. */
  readonly pageCacheBytes: number;
  /** Origins allowed by CORS; empty means CORS stays off. */
  readonly corsOrigins: readonly string[];
  /** Longest time a request may take to arrive and be answered. */
  readonly requestTimeoutMs: number;
  /** How long an idle keep-alive connection stays open. */
  readonly keepAliveTimeoutMs: number;
  /** How long graceful shutdown waits for in-flight requests before closing anyway. */
  readonly shutdownTimeoutMs: number;
  /**
   * Whose `X-Forwarded-For` to believe: false for nobody (request.ip is the peer), or the proxies' own addresses and CIDR
   * ranges, comma-separated (request.ip is then the address the outermost trusted proxy saw).
   */
  readonly trustProxy: false | string;
  /** Prometheus metrics: where their own listener binds (METRICS_HOST, METRICS_PORT); null when METRICS_PORT=off. */
  readonly metrics: { readonly host: string; readonly port: number } | null;
  /** OpenTelemetry tracing, on through the standard OTEL_* variables (see tracingEnabled); the SDK reads the rest. */
  readonly tracing: boolean;
  readonly webhooks: WebhookConfig;
}

/** Webhook delivery (see webhooks/): every timing knob, so tests can shorten the schedule. */
export interface WebhookConfig {
  /** Deliver to http:// URLs and to private, loopback and link-local addresses (tests, local development). */
  readonly allowPrivate: boolean;
  /** Deadline of one attempt: connecting, sending and reading the answer. */
  readonly timeoutMs: number;
  /** Deliveries in flight at once, per process. */
  readonly concurrency: number;
  /** Deliveries of one subscription in flight at once, across every instance (its queue's cap). */
  readonly perSubscription: number;
  /** Failed attempts in a row (timeouts, connection errors, 408, 429, 5xx) that open a subscription's circuit. */
  readonly circuitFailures: number;
  /** How long an open circuit stays open the first time (then doubled, at most 10 minutes or this, if longer). */
  readonly circuitOpenMs: number;
  /** How often the worker looks for due deliveries queued elsewhere (other processes, retries, the CLI). */
  readonly pollMs: number;
  /** Delay before the first retry; later ones follow a schedule scaled from it (5 s, 5 min, 30 min, 2 h, ...). */
  readonly retryFirstMs: number;
  /** How long after the event a delivery keeps being retried before it is marked failed. */
  readonly retryPeriodMs: number;
  /** How long delivered and failed deliveries are kept (for `webhook deliveries` and `replay`). */
  readonly retentionMs: number;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

const DEFAULT_DATABASE_URL = 'sqlite:./data/plant-store.db';

function integer(env: Record<string, string | undefined>, name: string, fallback: number, min: number, max: number) {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  if (!/^\d+$/.test(raw.trim()))
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
  const value = Number(raw.trim());
  if (value < min || value > max) throw new ConfigError(`${name} must be from ${min} to ${max}, got ${value}`);
  return value;
}

function boolean(env: Record<string, string | undefined>, name: string, fallback: boolean) {
  const raw = env[name]?.trim().toLowerCase();
  if (raw === undefined || raw === '') return fallback;
  if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
  if (['0', 'false', 'no', 'off'].includes(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${env[name]}"`);
}

function databaseUrl(raw: string | undefined): string {
  const value = raw?.trim() || DEFAULT_DATABASE_URL;
  if (engineOf(value) === 'postgres') return postgresUrl(value, 'DATABASE_URL');
  if (engineOf(value) !== undefined) return value;
  throw new ConfigError(`DATABASE_URL must be ${DATABASE_URL_FORMS}, got "${value}"`);
}

function databaseDirectUrl(raw: string | undefined, database: string): string | null {
  const value = raw?.trim();
  if (!value) return null;
  if (engineOf(value) !== 'postgres') {
    throw new ConfigError(`DATABASE_DIRECT_URL must be postgres://user@host:port/database, got "${value}"`);
  }
  if (engineOf(database) !== 'postgres') {
    throw new ConfigError('DATABASE_DIRECT_URL is for a PostgreSQL DATABASE_URL (behind a pooler), not this one');
  }
  return postgresUrl(value, 'DATABASE_DIRECT_URL');
}

/** A PostgreSQL URL whose hosts and target_session_attrs the store can follow (multi-host-url.ts). */
function postgresUrl(value: string, name: string): string {
  try {
    parsePostgresUrl(value, name);
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
  return value;
}

function origins(raw: string | undefined): string[] {
  if (!raw?.trim()) return [];
  return raw.split(',').map((origin) => {
    const value = origin.trim();
    if (value === '*') return value;
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw new ConfigError(
        `CORS_ORIGINS must be a comma-separated list of origins like https://app.example.com, got "${value}"`,
      );
    }
    if (url.origin !== value.replace(/\/$/, '')) {
      throw new ConfigError(`CORS_ORIGINS entries must be bare origins (scheme://host[:port]), got "${value}"`);
    }
    return url.origin;
  });
}

function jwt(env: Record<string, string | undefined>): JwtConfig | null {
  const jwksUrl = env.JWT_JWKS_URL?.trim() || undefined;
  const publicKey = env.JWT_PUBLIC_KEY?.trim() || undefined;
  const secret = env.JWT_SECRET || undefined;
  const sources = [jwksUrl, publicKey, secret].filter((value) => value !== undefined);
  if (sources.length === 0) return null;
  if (sources.length > 1) throw new ConfigError('set only one of JWT_JWKS_URL, JWT_PUBLIC_KEY and JWT_SECRET');
  if (jwksUrl && !/^https?:\/\//.test(jwksUrl))
    throw new ConfigError(`JWT_JWKS_URL must be an http(s) URL, got "${jwksUrl}"`);
  if (secret !== undefined && secret.length < 32) throw new ConfigError('JWT_SECRET must be at least 32 characters');
  const issuer = env.JWT_ISSUER?.trim();
  const audience = env.JWT_AUDIENCE?.trim();
  if (!issuer || !audience)
    throw new ConfigError('JWT_ISSUER and JWT_AUDIENCE are required when JWT verification is on');
  const algorithms = env.JWT_ALGORITHMS?.split(',')
    .map((value) => value.trim())
    .filter(Boolean);
  if (algorithms?.some((algorithm) => algorithm.toLowerCase() === 'none')) {
    throw new ConfigError('JWT_ALGORITHMS must not include "none"');
  }
  return Object.freeze({
    ...(jwksUrl ? { jwksUrl } : {}),
    ...(publicKey ? { publicKey: publicKey.replaceAll('\\n', '\n') } : {}),
    ...(secret ? { secret } : {}),
    ...(algorithms?.length ? { algorithms: Object.freeze(algorithms) } : {}),
    issuer,
    audience,
    clockToleranceSec: integer(env, 'JWT_CLOCK_TOLERANCE_S', 30, 0, 600),
    maxLifetimeSec: integer(env, 'JWT_MAX_LIFETIME_S', 86_400, 1, 31_622_400),
    jwksCooldownMs: integer(env, 'JWT_JWKS_COOLDOWN_MS', 30_000, 0, 3_600_000),
  });
}

function redisUrl(raw: string | undefined): string | null {
  const value = raw?.trim();
  if (!value) return null;
  if (!/^rediss?:\/\/.+/.test(value))
    throw new ConfigError(`REDIS_URL must look like redis://host:port, got "${value}"`);
  return value;
}

/** proxy-addr's names for address ranges (127.0.0.0/8 and ::1; 169.254.0.0/16 and fe80::/10; private ranges). */
const PROXY_RANGE_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

function proxyAddress(entry: string): boolean {
  if (PROXY_RANGE_NAMES.includes(entry)) return true;
  const [address = '', bits, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (bits === undefined) return true;
  return /^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128);
}

/**
 * TRUST_PROXY: `false` (default) or the addresses of the proxies in front. `true` (every hop) is refused, since any
 * client could then write its own address into X-Forwarded-For and escape the per-address limits; so is a hop count,
 * which cannot tell a proxy from a client that reaches the instance directly (Fastify 5 trusts no hop for one).
 */
function trustProxy(raw: string | undefined): Config['trustProxy'] {
  const value = raw?.trim().toLowerCase() ?? '';
  if (['', '0', 'false', 'no', 'off'].includes(value)) return false;
  const hint =
    'set the addresses or CIDR ranges of the proxies in front, e.g. TRUST_PROXY=10.0.0.5,10.0.1.0/24 ' +
    '(or loopback, linklocal, uniquelocal)';
  if (['true', 'yes', 'on'].includes(value) || /^\d+$/.test(value)) {
    throw new ConfigError(
      `TRUST_PROXY=${raw?.trim()} cannot tell a proxy from a client that sends X-Forwarded-For itself; ${hint}`,
    );
  }
  const entries = value.split(',').map((entry) => entry.trim());
  const bad = entries.find((entry) => !proxyAddress(entry));
  if (bad !== undefined) throw new ConfigError(`TRUST_PROXY: "${bad}" is not an address or CIDR range; ${hint}`);
  return entries.join(',');
}

/** The default metrics port: OpenTelemetry's Prometheus exporter's. */
const DEFAULT_METRICS_PORT = 9464;

function metrics(env: Record<string, string | undefined>): Config['metrics'] {
  if (env.METRICS_PORT?.trim().toLowerCase() === 'off') return null;
  return Object.freeze({
    host: env.METRICS_HOST?.trim() || '127.0.0.1',
    port: integer(env, 'METRICS_PORT', DEFAULT_METRICS_PORT, 0, 65535),
  });
}

/**
 * Tracing is on when the OpenTelemetry variables ask for an exporter: an OTLP endpoint, or OTEL_TRACES_EXPORTER
 * other than `none`; OTEL_SDK_DISABLED=true turns it off whatever else is set.
 */
function tracingEnabled(env: Record<string, string | undefined>): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  const exporter = env.OTEL_TRACES_EXPORTER?.trim().toLowerCase();
  if (exporter === 'none') return false;
  return Boolean(exporter || env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}

/** Parses the environment into a Config, or throws a ConfigError naming the bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const logLevel = (env.LOG_LEVEL?.trim().toLowerCase() || 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${env.LOG_LEVEL}"`);
  }
  const rateLimitMax = integer(env, 'RATE_LIMIT_MAX', 1200, 0, 1_000_000_000);
  const rateLimitWindowMs = integer(env, 'RATE_LIMIT_WINDOW_MS', 60_000, 1, 86_400_000);
  const anonymousMax = integer(env, 'RATE_LIMIT_ANONYMOUS_MAX', 600, 0, 1_000_000_000);
  const database = databaseUrl(env.DATABASE_URL);
  return Object.freeze({
    host: env.HOST?.trim() || '127.0.0.1',
    port: integer(env, 'PORT', 3000, 0, 65535),
    databaseUrl: database,
    databaseUrlFrom: env.DATABASE_URL?.trim() ? 'DATABASE_URL' : 'default',
    databaseDirectUrl: databaseDirectUrl(env.DATABASE_DIRECT_URL, database),
    sqliteGroupCommit: boolean(env, 'SQLITE_GROUP_COMMIT', true),
    databasePoolSize: integer(env, 'DATABASE_POOL_SIZE', DEFAULT_POOL_SIZE, 1, 1000),
    redisUrl: redisUrl(env.REDIS_URL),
    jwt: jwt(env),
    logLevel,
    accessLog: boolean(env, 'ACCESS_LOG', false),
    rateLimit:
      rateLimitMax === 0 && anonymousMax === 0
        ? null
        : Object.freeze({ max: rateLimitMax, windowMs: rateLimitWindowMs, anonymousMax }),
    maxEventLoopDelayMs: integer(env, 'MAX_EVENT_LOOP_DELAY_MS', 2_000, 0, 600_000),
    readOnly: boolean(env, 'READ_ONLY', false),
    pageCacheBytes: integer(env, 'PAGE_CACHE_BYTES', DEFAULT_PAGE_CACHE_BYTES, 0, 4 * 1024 * 1024 * 1024),
    corsOrigins: Object.freeze(origins(env.CORS_ORIGINS)),
    requestTimeoutMs: integer(env, 'REQUEST_TIMEOUT_MS', 10_000, 100, 600_000),
    keepAliveTimeoutMs: integer(env, 'KEEP_ALIVE_TIMEOUT_MS', 5_000, 100, 600_000),
    shutdownTimeoutMs: integer(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, 0, 600_000),
    trustProxy: trustProxy(env.TRUST_PROXY),
    webhooks: Object.freeze({
      allowPrivate: boolean(env, 'WEBHOOK_ALLOW_PRIVATE', false),
      timeoutMs: integer(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100, 600_000),
      concurrency: integer(env, 'WEBHOOK_CONCURRENCY', 64, 1, 1000),
      perSubscription: integer(env, 'WEBHOOK_PER_SUBSCRIPTION', 4, 1, 1000),
      circuitFailures: integer(env, 'WEBHOOK_CIRCUIT_FAILURES', 5, 1, 1000),
      circuitOpenMs: integer(env, 'WEBHOOK_CIRCUIT_OPEN_MS', 30_000, 100, 3_600_000),
      pollMs: integer(env, 'WEBHOOK_POLL_MS', 250, 10, 500),
      retryFirstMs: integer(env, 'WEBHOOK_RETRY_FIRST_MS', 5_000, 10, 3_600_000),
      retryPeriodMs: integer(env, 'WEBHOOK_RETRY_PERIOD_MS', 86_400_000, 1_000, 30 * 86_400_000),
      retentionMs: integer(env, 'WEBHOOK_RETENTION_MS', 7 * 86_400_000, 60_000, 365 * 86_400_000),
    }),
    metrics: metrics(env),
    tracing: tracingEnabled(env),
  });
}
