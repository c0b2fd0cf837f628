// A plant-store server with bench layers switched off, for `pnpm bench --layers`. The service refuses to switch off
// from its environment a layer whose absence weakens its security (config.ts, WEAKENING_LAYERS: auth, validation,
// ...), so the bench builds such a variant itself: the built library's configuration from the environment, with
// `benchOff` set here, run by the same runServer as `plant-store serve`. layers.ts starts it with the V8 and glibc
// sizing that `serve` gives itself (bin/plant-store.js), so a variant differs from the default in its layer only.
// Environment: the service's own variables, plus BENCH_LAYERS_OFF (comma-separated layer names, read only here).
// Usage: BENCH_LAYERS_OFF=auth,validation DATABASE_URL=... PORT=... tsx tools/bench/src/variant-server.ts
interface ServerLibrary {
  loadConfig(env: Record<string, string | undefined>): { benchOff: readonly string[] };
  BENCH_LAYERS: readonly string[];
}

const dist = new URL('../../../packages/server/dist/', import.meta.url);
const { loadConfig, BENCH_LAYERS } = (await import(new URL('config.js', dist).href)) as ServerLibrary;
const { runServer } = (await import(new URL('server.js', dist).href)) as { runServer(config: unknown): Promise<void> };

const off = (process.env.BENCH_LAYERS_OFF ?? '').split(',').filter(Boolean);
const unknown = off.filter((name) => !BENCH_LAYERS.includes(name));
if (unknown.length > 0) throw new Error(`BENCH_LAYERS_OFF: unknown layers ${unknown.join(', ')}`);
const { PLANT_STORE_BENCH_OFF: _ignored, ...env } = process.env;
await runServer(Object.freeze({ ...loadConfig(env), benchOff: Object.freeze(off) }));
