// The two configurations the bench runs plant-store in: the one it ships (the headline figures) and the tuned one
// beside it, so a figure says what the defaults cost.

/**
 * The shipped configuration: info logging (no access log: ACCESS_LOG is off by default), metrics on their own listener
 * (an ephemeral port), request ids, security headers, and the rate limit raised so far that it never answers 429 while
 * its counting still runs.
 */
export const DEFAULTS: Record<string, string> = {
  LOG_LEVEL: 'info',
  RATE_LIMIT_MAX: '1000000000',
  RATE_LIMIT_ANONYMOUS_MAX: '1000000000',
  METRICS_PORT: '0',
};

/** The tuned configuration: warn logging, no rate limit, no metrics listener. */
export const TUNED: Record<string, string> = {
  LOG_LEVEL: 'warn',
  RATE_LIMIT_MAX: '0',
  METRICS_PORT: 'off',
};

/** `LOG_LEVEL=warn RATE_LIMIT_MAX=0 METRICS_PORT=off`: a configuration as the report writes it. */
export const showConfiguration = (env: Record<string, string>) =>
  Object.entries(env)
    .map(([name, value]) => `${name}=${value}`)
    .join(' ');
