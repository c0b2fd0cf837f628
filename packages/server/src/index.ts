// The service as a library, for embedding it and for tests (@plant-store/test-kit): build the app on a store, read
// the configuration, open a store, issue a token. The `plant-store` command (cli/main.ts) is the other way in.
export { type AppOptions, buildApp } from './app.js';
export { issueToken } from './auth/tokens.js';
export { type Config, ConfigError, loadConfig } from './config.js';
export { createMetrics, type Metrics } from './observability/metrics.js';
export type { ServerOptions } from './server.js';
export { openStore } from './store/open-store.js';
export type { Store } from './store/store.js';
