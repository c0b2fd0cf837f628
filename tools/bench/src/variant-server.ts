// A plant-store server with bench layers switched off, for `pnpm bench --layers`: the built library's configuration
// from the environment, run by the same runServer as `plant-store serve`, with buildApp's options that
// layer-switches.ts makes for the layers named in BENCH_LAYERS_OFF (comma-separated; read only here: the service
// itself reads no bench variable). layers.ts starts it with the V8 and glibc sizing that `serve` gives itself
// (bin/plant-store.js), so a variant differs from the default in its layer only.
// Usage: BENCH_LAYERS_OFF=auth,validation DATABASE_URL=... PORT=... node --import tsx tools/bench/src/variant-server.ts
import type { Config, ServerOptions } from '@plant-store/server';
import { keepTickShapes } from '@plant-store/server/tick-shapes';
import { parseLayers, switchedOff } from './layer-switches.js';

// What bin/plant-store.js does first (tick-shapes.js), so a variant differs from `serve` in its layers only.
keepTickShapes();

// The built service (dist/), as `serve` runs it: not its sources through tsx.
const dist = new URL('../../../packages/server/dist/', import.meta.url);
const { loadConfig } = (await import(new URL('config.js', dist).href)) as {
  loadConfig(env: NodeJS.ProcessEnv): Config;
};
const { runServer } = (await import(new URL('server.js', dist).href)) as {
  runServer(config: Config, options: ServerOptions): Promise<void>;
};

await runServer(loadConfig(process.env), switchedOff(parseLayers(process.env.BENCH_LAYERS_OFF)));
