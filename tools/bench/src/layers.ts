// What each layer of the request path costs (`pnpm bench --layers`): the service on the default configuration next
// to the same service with one feature switched off (or, for features off by default, on), every variant started
// once, seeded, and then measured in turn on the hot read and the mixed workload, the order rotating by one per
// round so variants interleave; in the first round each variant's measured run of a scenario follows its warm-up on
// that scenario (warm-up.ts, the rule every target shares), so no variant is priced while still compiling its code or
// filling its caches. The figure is the server's CPU time per request (every thread, from /proc), which a
// shared machine shakes far less than requests per second; a layer's price is the variant's figure minus the
// default's (sign turned so that a positive price is what the feature costs). Every variant, the default included,
// runs through variant-server.ts: a layer no configuration turns off (BENCH_LAYERS_OFF, layer-switches.ts) is
// switched off through buildApp's options there; the service itself reads no bench switch.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DEFAULTS } from './configurations.js';
import type { SwitchedLayer } from './layer-switches.js';
import { Samples, show, spread } from './stats.js';
import { plantStore, type Running, sqliteFile, type Target, VARIANT_RUNTIME } from './targets.js';
import { cpuTrail, steadiness, warmUntilSteady } from './warm-up.js';
import { type Scenario, type WrkResult, wrkAgainst } from './wrk.js';

/** One row of the layer table: the server's env on top of DEFAULTS, and whether the row turns a feature on. */
export interface Layer {
  name: string;
  /** What the variant changes, in words, for the table. */
  how: string;
  env: Record<string, string>;
  /** True when the variant switches a feature on (its price is variant - default), else off (default - variant). */
  on?: boolean;
  /** What the layer may cost per request on the hot read, in microseconds of server CPU (the README's budget). */
  budgetUs: number;
}

const off = (name: string, how: string, env: Record<string, string>, budgetUs: number): Layer => ({
  name,
  how,
  env,
  budgetUs,
});
const benchOff = (name: string, switchName: SwitchedLayer, how: string, budgetUs: number): Layer => ({
  name,
  how: `bench layer \`${switchName}\` off: ${how}`,
  env: { BENCH_LAYERS_OFF: switchName },
  budgetUs,
});

/** Every layer the bench prices; `--layers a,b` picks some by name. */
export function layers(receiverUrl: string): Layer[] {
  return [
    off(
      'logging',
      '`LOG_LEVEL=silent` (default `info`: start-up, state changes, refusals, errors)',
      { LOG_LEVEL: 'silent' },
      1,
    ),
    {
      name: 'access log',
      how: '`ACCESS_LOG=true`: a line per request when it is answered (on)',
      env: { ACCESS_LOG: 'true' },
      on: true,
      budgetUs: 5,
    },
    off('metrics', '`METRICS_PORT=off`', { METRICS_PORT: 'off' }, 3),
    off(
      'rate limits',
      '`RATE_LIMIT_MAX=0` (per principal, and the anonymous limit with it)',
      { RATE_LIMIT_MAX: '0' },
      4,
    ),
    off('load shedding', '`MAX_EVENT_LOOP_DELAY_MS=0`', { MAX_EVENT_LOOP_DELAY_MS: '0' }, 1),
    benchOff('security headers', 'security-headers', 'no helmet headers, no `Cache-Control`', 2),
    benchOff('request ids', 'request-ids', 'a counter instead of a UUID, no `X-Request-Id` header', 1),
    benchOff(
      'auth',
      'auth',
      'the principal remembered per operation and Authorization header after its first check (no hash, no lookup)',
      4,
    ),
    benchOff('validation', 'validation', 'query and body checked by nothing but integer conversion', 3),
    benchOff('serialization', 'serialization', '`JSON.stringify` instead of the compiled response serializers', 2),
    benchOff('webhook worker (idle)', 'webhook-worker', 'the delivery worker not started', 0.5),
    {
      name: 'tracing',
      how: '`OTEL_TRACES_EXPORTER=otlp` to a local sink answering 200 (on)',
      env: {
        OTEL_TRACES_EXPORTER: 'otlp',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_EXPORTER_OTLP_ENDPOINT: receiverUrl,
      },
      on: true,
      budgetUs: 25,
    },
  ];
}

export interface LayerRun {
  /** `default`, `everything off`, or a layer's name. */
  variant: string;
  scenario: Scenario;
  result: WrkResult;
}

/** A server answering 200 to anything (the tracing variant's OTLP endpoint). */
async function sink(): Promise<{ url: string; server: Server }> {
  const server = createServer((request, response) => {
    request.resume().on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

export async function priceLayers(options: {
  pick: string[] | undefined;
  scenarios: Scenario[];
  rounds: number;
  seconds: number;
  /** Seconds of each warm-up run. */
  warmUpSeconds: number;
  connections: number;
  port: number;
  log: (line: string) => void;
}): Promise<{ runs: Samples<WrkResult>; list: Layer[]; variants: string[] }> {
  const receiver = await sink();
  const all = layers(receiver.url);
  const list = options.pick ? all.filter((layer) => options.pick!.includes(layer.name)) : all;
  const everythingOff: Layer = {
    name: 'everything off',
    how: 'every switch above off at once',
    budgetUs: Number.NaN,
    env: {
      LOG_LEVEL: 'silent',
      METRICS_PORT: 'off',
      RATE_LIMIT_MAX: '0',
      MAX_EVENT_LOOP_DELAY_MS: '0',
      BENCH_LAYERS_OFF: all
        .map((layer) => layer.env.BENCH_LAYERS_OFF)
        .filter(Boolean)
        .join(','),
    },
  };
  const targets: Target[] = [
    plantStore('default', sqliteFile, DEFAULTS, options.scenarios, VARIANT_RUNTIME),
    ...[...list, everythingOff].map((layer) =>
      plantStore(layer.name, sqliteFile, { ...DEFAULTS, ...layer.env }, options.scenarios, VARIANT_RUNTIME),
    ),
  ];
  const runs = new Samples<WrkResult>();
  const running: Running[] = [];
  let port = options.port;
  try {
    for (const target of targets) running.push(await target.start(port++));
    let run = 0;
    for (let round = 0; round < options.rounds; round++) {
      const order = targets.map((_, i) => (i + round) % targets.length);
      for (const scenario of options.scenarios) {
        for (const index of order) {
          const target = targets[index]!;
          const server = running[index]!;
          const measure = (seconds: number) =>
            wrkAgainst(server, {
              scenario,
              base: 1_000_000_000 + 10_000_000 * ++run,
              seconds,
              connections: options.connections,
            });
          if (round === 0) {
            const warm = await warmUntilSteady(() => measure(options.warmUpSeconds));
            options.log(
              `  warm-up ${scenario} ${target.name}: ${warm.runs.length} runs, ${cpuTrail(warm)}${steadiness(warm)}`,
            );
          }
          const result = await measure(options.seconds);
          runs.add(`${target.name}|${scenario}`, result);
          options.log(
            `  round ${round + 1} ${scenario} ${target.name}: ${result.requestsPerSec.toFixed(0)} req/s, p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms, ${result.cpuUsPerRequest.toFixed(1)} us CPU/request, non-2xx ${result.non2xx}, RSS ${result.maxRssMb} MB`,
          );
        }
      }
    }
  } finally {
    await Promise.all(running.map((server) => server.stop()));
    receiver.server.close();
  }
  return { runs, list: [...list, everythingOff], variants: targets.map((target) => target.name) };
}

/** The layer table: each variant's CPU per request and the layer's price, on the hot read and the mixed workload. */
export async function layerTable(options: {
  pick: string[] | undefined;
  rounds: number;
  seconds: number;
  warmUpSeconds: number;
  connections: number;
  port: number;
  log: (line: string) => void;
}): Promise<{ table: string; ports: number }> {
  const { pick, rounds: layerRounds, seconds, warmUpSeconds, connections, port, log } = options;
  const { runs, list: layers } = await priceLayers({
    pick,
    scenarios: ['get', 'mixed'],
    rounds: layerRounds,
    seconds,
    warmUpSeconds,
    connections,
    port,
    log,
  });
  const us = (variant: string, scenario: 'get' | 'mixed') =>
    spread(runs.get(`${variant}|${scenario}`).map((r) => r.cpuUsPerRequest));
  const rate = (variant: string, scenario: 'get' | 'mixed') =>
    spread(runs.get(`${variant}|${scenario}`).map((r) => r.requestsPerSec));
  const price = (variant: string, on: boolean | undefined, scenario: 'get' | 'mixed') => {
    const base = us('default', scenario)?.median;
    const other = us(variant, scenario)?.median;
    if (base === undefined || other === undefined) return 'n/a';
    return (on ? other - base : base - other).toFixed(1);
  };
  const rss = (variant: string, scenario: 'get' | 'mixed') =>
    show(spread(runs.get(`${variant}|${scenario}`).map((r) => r.maxRssMb)));
  const row = (name: string, how: string, on?: boolean, budget = Number.NaN) =>
    `| ${name} | ${how} | ${show(us(name, 'get'), 1)} | ${name === 'default' ? '' : price(name, on, 'get')} | ${Number.isNaN(budget) ? '' : budget} | ${show(rate(name, 'get'))} | ${rss(name, 'get')} | ${show(us(name, 'mixed'), 1)} | ${name === 'default' ? '' : price(name, on, 'mixed')} | ${show(rate(name, 'mixed'))} | ${rss(name, 'mixed')} |`;
  const table = [
    '| layer | switched by | hot read: us CPU/request | price us | budget us | req/s | peak RSS MB | mixed: us CPU/request | price us | req/s | peak RSS MB |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    row(
      'default',
      `the defaults, with ${Object.entries(DEFAULTS)
        .map(([k, v]) => `\`${k}=${v}\``)
        .join(', ')}`,
    ),
    ...layers.map((layer) => row(layer.name, layer.how, layer.on, layer.budgetUs)),
  ].join('\n');
  return { table, ports: layers.length + 1 };
}
