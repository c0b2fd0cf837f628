// The container image's contents, proven without Docker: the Dockerfile's own `pnpm deploy --prod` command builds the
// deploy folder here, the folder holds the server's production dependencies and nothing else, and the service starts
// from it alone (outside the repository, so no workspace package can be found by walking up): it serves the API, its
// contract, metrics and tracing, drains on SIGTERM, and does so as PID 1 too (a PID namespace of its own, as in a
// container). The Dockerfile's runtime stage is checked to copy only that folder, run as a non-root user, probe
// /healthz and start under tini.
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { sampleValue } from '@plant-store/test-kit/prometheus-samples';
import { type ServerProcess, startServerProcess } from '@plant-store/test-kit/server-process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SERVER_PACKAGE = JSON.parse(readFileSync(join(ROOT, 'packages/server/package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};
const DOCKERFILE = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
// The stage after the last FROM: what the image holds.
const RUNTIME_STAGE = DOCKERFILE.slice(DOCKERFILE.lastIndexOf('\nFROM '));
// A PID namespace needs privileges; where there are none, the PID 1 case cannot be shown on this machine.
const CAN_UNSHARE = spawnSync('unshare', ['--pid', '--fork', 'true']).status === 0;

let work: string;
let deploy: string;
let bin: string;
/** What the deploy command printed (pnpm's warnings included). */
let deployOutput: string;
const processes: ServerProcess[] = [];
// Only what a container would have: no NODE_OPTIONS, no NODE_PATH, nothing from the test run.
const baseEnv = { PATH: process.env.PATH };

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'plant-store-deploy-'));
  deploy = join(work, 'app');
  const command = /^RUN (npx -y pnpm@\S+ --filter @plant-store\/server deploy [^\n]*) \/deploy$/m.exec(DOCKERFILE)?.[1];
  if (!command) throw new Error('the Dockerfile has no `pnpm --filter @plant-store/server deploy ... /deploy` step');
  const [executable, ...args] = command.split(' ');
  const deployed = await run(executable!, [...args, '--prefer-offline', deploy], { cwd: ROOT, timeout: 180_000 });
  deployOutput = `${deployed.stdout}${deployed.stderr}`;
  bin = join(deploy, 'bin/plant-store.js');
}, 200_000);

afterAll(async () => {
  for (const server of processes) if (server.child.exitCode === null) server.child.kill('SIGKILL');
  await Promise.all(processes.map((server) => server.exited));
  rmSync(work, { recursive: true, force: true });
});

async function cli(...args: string[]): Promise<string> {
  const env = { ...baseEnv, DATABASE_URL: `sqlite:${join(work, 'data/plant-store.db')}` };
  return (await run(process.execPath, [bin, ...args], { cwd: deploy, env })).stdout;
}

async function serve(env: Record<string, string> = {}, command = [process.execPath, bin]): Promise<ServerProcess> {
  const server = await startServerProcess({ DATABASE_URL: `sqlite:${join(work, 'data/plant-store.db')}`, ...env }, [], {
    command,
    baseEnv,
    cwd: deploy,
  });
  processes.push(server);
  return server;
}

describe('the Dockerfile', () => {
  it('copies only the deploy folder into the runtime stage, runs as a non-root user under tini, probes /healthz', () => {
    expect(RUNTIME_STAGE.match(/^COPY .*$/gm)).toEqual(['COPY --from=build /deploy /app']);
    expect(RUNTIME_STAGE).toMatch(/^USER node$/m);
    expect(RUNTIME_STAGE).toMatch(/^HEALTHCHECK [^\n]*\\\n\s+CMD [^\n]*\/healthz/m);
    expect(RUNTIME_STAGE).toMatch(/^ENTRYPOINT \["tini", "--", "node", "bin\/plant-store\.js"\]$/m);
  });
});

describe('the deploy folder', () => {
  it('installs without an unmet peer, with the OTLP/HTTP trace exporter alone (no gRPC, no other exporter)', () => {
    expect(deployOutput).not.toMatch(/unmet peer|Issues with peer dependencies/i);
    const installed = readdirSync(join(deploy, 'node_modules/.pnpm'));
    expect(installed).toContainEqual(expect.stringMatching(/^@opentelemetry\+exporter-trace-otlp-http@/));
    const unused = /grpc|protobufjs|@opentelemetry\+(sdk-node|exporter-(?!trace-otlp-http))|under-pressure/;
    expect(installed.filter((name) => unused.test(name))).toEqual([]);
    // 109 MB with @opentelemetry/sdk-node (every exporter, gRPC included), 88 MB without (`du -sh`, linux-x64; of
    // which better-sqlite3 is 27 MB).
    const kilobytes = Number(spawnSync('du', ['-sk', deploy], { encoding: 'utf8' }).stdout.split('\t')[0]);
    expect(kilobytes).toBeGreaterThan(0);
    expect(kilobytes).toBeLessThan(95 * 1024);
  });

  it('holds the compiled server and its production dependencies, nothing else', () => {
    expect(readdirSync(deploy).sort()).toEqual(['bin', 'dist', 'node_modules', 'package.json']);
    const topLevel = readdirSync(join(deploy, 'node_modules'))
      .filter((name) => !name.startsWith('.'))
      .flatMap((name) =>
        name.startsWith('@') ? readdirSync(join(deploy, 'node_modules', name)).map((n) => `${name}/${n}`) : [name],
      );
    expect(topLevel.sort()).toEqual(Object.keys(SERVER_PACKAGE.dependencies).sort());
    const installed = readdirSync(join(deploy, 'node_modules/.pnpm'));
    for (const tool of [
      ...Object.keys(SERVER_PACKAGE.devDependencies),
      'typescript',
      'vitest',
      'tsx',
      '@biomejs/biome',
    ]) {
      const folder = `${tool.replace('/', '+')}@`;
      expect(
        installed.filter((name) => name.startsWith(folder)),
        tool,
      ).toEqual([]);
    }
    // The contract package carries its compiled code and openapi.yaml (read at run time), not its sources; the core
    // package (the handlers) its compiled code alone.
    const contract = join(deploy, 'node_modules/@plant-store/contract');
    expect(existsSync(join(contract, 'dist/openapi.yaml'))).toBe(true);
    expect(existsSync(join(contract, 'src'))).toBe(false);
    const core = join(deploy, 'node_modules/@plant-store/core');
    expect(existsSync(join(core, 'dist/index.js'))).toBe(true);
    expect(existsSync(join(core, 'src'))).toBe(false);
  });

  it('checks a deployment with `plant-store conformance` (@plant-store/conformance, deployed with the server)', async () => {
    const token = (await cli('token', 'create', '--subject', 'deployed-conformance')).trim().split('\n').at(-1)!;
    const server = await serve({ METRICS_PORT: '0' });
    const output = await cli('conformance', '--base-url', server.url, '--token', token, '--requests', '20');
    expect(output).toMatch(/^PASSED/m);
  }, 60_000);

  it('runs the service: API, contract, metrics, then a clean SIGTERM', async () => {
    const token = (await cli('token', 'create', '--subject', 'deployed')).trim().split('\n').at(-1)!;
    const server = await serve({ METRICS_PORT: '0' });
    const auth = { authorization: `Bearer ${token}` };
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    const created = await fetch(`${server.url}/plants`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ id: 1, name: 'Fern' }),
    });
    expect(created.status).toBe(200);
    expect(await (await fetch(`${server.url}/plants`, { headers: auth })).json()).toEqual([{ name: 'Fern' }]);
    expect(await (await fetch(`${server.url}/openapi.yaml`)).text()).toBe(
      readFileSync(join(ROOT, 'openapi.yaml'), 'utf8'),
    );
    const metricsUrl = /Metrics listening at (\S+\/metrics)/.exec(server.output())?.[1];
    const metrics = await (await fetch(metricsUrl!)).text();
    expect(
      sampleValue(metrics, 'http_server_request_duration_seconds_count', {
        http_request_method: 'POST',
        http_route: '/plants',
        http_response_status_code: '200',
        operation_id: 'createPlant',
      }),
    ).toBe(1);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  });

  it('loads the OpenTelemetry SDK from its own dependencies when tracing is on', async () => {
    // Nothing listens on the discard port: spans are dropped, but the SDK has to load and start for the service to.
    const server = await serve({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' });
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  });

  it.runIf(CAN_UNSHARE)('handles SIGTERM as PID 1 (a PID namespace of its own, as in a container)', async () => {
    const server = await serve({}, ['unshare', '--pid', '--fork', process.execPath, bin]);
    expect(server.output()).toContain('"pid":1,');
    const unsharePid = server.child.pid!;
    const [nodePid] = readFileSync(`/proc/${unsharePid}/task/${unsharePid}/children`, 'utf8').trim().split(' ');
    // From outside its namespace, PID 1 only gets the signals it handles: an unhandled SIGTERM would be ignored.
    process.kill(Number(nodePid), 'SIGTERM');
    expect(await server.exited).toBe(0);
    expect(server.output()).toContain('"signal":"SIGTERM","msg":"shutting down: finishing in-flight requests"');
  });
});
