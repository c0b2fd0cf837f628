// `plant-store-conformance proxy` as a process, the way a CI job runs it around a frontend's suite: it prints where it
// listens, and SIGINT or SIGTERM makes it print the summary, write the report and exit 1 when it saw a violation, 0
// when it saw none; a second signal while requests are still under way ends it at once. `plant-store conformance
// proxy` is the same command.
import { execFile, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { collectOutput } from '@plant-store/test-kit/child-output';
import { rawAnswer, startRawUpstream } from '@plant-store/test-kit/raw-upstream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { proxyCommand } from '../../src/proxy/command.js';
import type { ProxyReport } from '../../src/proxy/violations.js';

const BIN = fileURLToPath(new URL('../../bin/plant-store-conformance.js', import.meta.url));
const SERVER_BIN = fileURLToPath(new URL('../../../server/bin/plant-store.js', import.meta.url));
const run = promisify(execFile);
let work: string;
const open: { close(): Promise<unknown> }[] = [];

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'plant-store-proxy-cli-'));
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((item) => item.close()));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Starts the proxy process in front of `upstream` and resolves once it says where it listens. */
async function startProcess(upstream: string, report: string, env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [BIN, 'proxy', '--upstream', upstream, '--port', '0', '--report', report], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  const { output, exited } = collectOutput(child);
  const url = await new Promise<string>((resolve, reject) => {
    const poll = setInterval(() => {
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output());
      if (match?.[1]) {
        clearInterval(poll);
        resolve(match[1]);
      }
    }, 20);
    void exited.then((code) => {
      clearInterval(poll);
      reject(new Error(`exited ${code}: ${output()}`));
    });
  });
  return { child, url, exited, output };
}

const readReport = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as ProxyReport;

describe('plant-store-conformance proxy on the command line', () => {
  it('exits 0 on SIGTERM when it saw no violation, and 1 on SIGINT when it saw one, writing the report each time', async () => {
    const upstream = await startRawUpstream((request) =>
      request.target === '/plants'
        ? rawAnswer(200, '[]', { 'content-type': 'application/json' })
        : rawAnswer(500, 'oops'),
    );
    open.push(upstream);
    const cleanReport = join(work, 'clean.json');
    const clean = await startProcess(upstream.url, cleanReport);
    expect((await fetch(`${clean.url}/plants`, { headers: { authorization: 'Bearer t' } })).status).toBe(200);
    clean.child.kill('SIGTERM');
    expect(await clean.exited).toBe(0);
    expect(clean.output()).toContain('1 requests forwarded, 0 violations of the contract');
    expect(readReport(cleanReport)).toMatchObject({ requests: 1, violationCount: 0, violations: [] });

    const brokenReport = join(work, 'broken.json');
    const broken = await startProcess(upstream.url, brokenReport);
    expect(
      (await fetch(`${broken.url}/plants/1`, { method: 'DELETE', headers: { authorization: 'Bearer t' } })).status,
    ).toBe(500);
    broken.child.kill('SIGINT');
    expect(await broken.exited).toBe(1);
    expect(broken.output()).toContain('FAILED');
    const report = readReport(brokenReport);
    expect(report.violations).toContainEqual({
      direction: 'response',
      operation: 'deletePlant',
      rule: 'no-5xx',
      sample: 'DELETE /plants/1 answered 500: a server error',
    });
  });

  it('forwards to an https upstream (trusting the CAs Node is given)', async () => {
    const key = join(work, 'key.pem');
    const cert = join(work, 'cert.pem');
    execFileSync(
      'openssl',
      [
        ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1'],
        ...['-keyout', key, '-out', cert, '-subj', '/CN=localhost', '-addext', 'subjectAltName=IP:127.0.0.1'],
      ],
      { stdio: 'ignore' },
    );
    const upstream = createServer({ key: readFileSync(key), cert: readFileSync(cert) }, (_request, answer) => {
      answer.writeHead(200, { 'content-type': 'application/json' }).end('[{"name":"Fern"}]');
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    open.push({ close: () => new Promise((resolve) => upstream.close(resolve)) });
    const { port } = upstream.address() as AddressInfo;
    const report = join(work, 'https.json');
    const proxy = await startProcess(`https://127.0.0.1:${port}`, report, { NODE_EXTRA_CA_CERTS: cert });
    const answer = await fetch(`${proxy.url}/plants`, { headers: { authorization: 'Bearer t' } });
    expect([answer.status, await answer.text()]).toEqual([200, '[{"name":"Fern"}]']);
    proxy.child.kill('SIGTERM');
    expect(await proxy.exited).toBe(0);
    expect(readReport(report)).toMatchObject({ requests: 1, violationCount: 0 });
  });

  it('waits for a request under way at the first signal, and ends at once on a second', async () => {
    const upstream = await startRawUpstream(() => 'silent');
    open.push(upstream);
    const proxy = await startProcess(upstream.url, join(work, 'waiting.json'));
    const pending = fetch(`${proxy.url}/plants`).catch(() => undefined);
    while (upstream.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    proxy.child.kill('SIGTERM');
    while (!proxy.output().includes('stopping;')) await new Promise((resolve) => setTimeout(resolve, 20));
    proxy.child.kill('SIGTERM');
    expect(await proxy.exited).toBe(143);
    await pending;
  });

  it('is `plant-store conformance proxy` too, and exits 2 on a usage error or a port it cannot listen on', async () => {
    const { stdout } = await run(process.execPath, [SERVER_BIN, 'conformance', 'proxy', '--help']);
    expect(stdout).toContain('Usage: plant-store conformance proxy --upstream URL --port P');
    const listed = await run(process.execPath, [SERVER_BIN, '--help']);
    expect(listed.stdout + listed.stderr).toContain('conformance proxy --upstream URL --port P [...]');
    const failed = await run(process.execPath, [BIN, 'proxy', '--port', '0']).catch((error: unknown) => error);
    expect(failed).toMatchObject({ code: 2, stderr: expect.stringContaining('--upstream URL is required') });
    const typo = await run(process.execPath, [BIN, 'proxy', '--upstream', 'http://x', '--prot', '1']).catch(
      (error: unknown) => error,
    );
    expect(typo).toMatchObject({ code: 2, stderr: expect.stringContaining('did you mean --port?') });
    // A port already taken is said, with exit code 2, before anything is forwarded.
    const taken = await startRawUpstream(() => 'silent');
    open.push(taken);
    const lines: string[] = [];
    const io = { stdout: (line: string) => lines.push(line), stderr: (line: string) => lines.push(line) };
    const port = new URL(taken.url).port;
    expect(await proxyCommand(['--upstream', 'http://127.0.0.1:1', '--port', port], io)).toBe(2);
    expect(lines).toEqual([`plant-store conformance proxy: cannot listen on 127.0.0.1:${port} (EADDRINUSE)`]);
  });
});
