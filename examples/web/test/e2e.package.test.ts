// The example app end to end, as an outside team would ship it: the SDK packed with pnpm and installed from the
// tarball with npm, the app built by Vite against that install, its files served on one loopback origin, and Debian's
// headless Chromium driving the page: add, list, page, delete, a 409 and a 400, asserting what a person would read.
// Twice: against the real service on another origin (CORS_ORIGINS names the page's), and against the tarball's
// `plant-store-mock` bin, as a frontend team without the service runs it. A screenshot of each is kept in .tmp/.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { extname, join, normalize, relative } from 'node:path';
import { promisify } from 'node:util';
import { launchChromium, startTestServer, type TestServer } from '@plant-store/test-kit';
import { collectOutput } from '@plant-store/test-kit/child-output';
import { sparePort } from '@plant-store/test-kit/spare-port';
import { userPath } from '@plant-store/test-kit/user-path';
import { waitFor } from '@plant-store/test-kit/wait';
import type { Browser, Page } from 'playwright-core';
import { build, type Plugin } from 'vite';
import { afterAll, beforeAll, expect, it } from 'vitest';

const run = promisify(execFile);
const exampleDir = new URL('..', import.meta.url).pathname;
const repoRoot = new URL('../../..', import.meta.url).pathname;
const sdkDir = join(repoRoot, 'packages/sdk');
const outputDir = join(repoRoot, '.tmp/example-web');
const work = mkdtempSync(join(tmpdir(), 'plant-store-example-web-'));
const consumer = join(work, 'consumer');
const dist = join(work, 'dist');
const sdkResolutions = new Set<string>();
let pageServer: Server;
let pageOrigin: string;
let api: TestServer;
let mock: { url: string; child: ChildProcess; exited: Promise<number | null> };
let browser: Browser;

/** Resolves `@plant-store/sdk` and its subpaths from the npm install of the tarball, through its `exports` (Vite
 * resolves from an importer's folder only when the importer is a file that exists: package.json is one). */
function packedSdk(): Plugin {
  return {
    name: 'packed-sdk',
    enforce: 'pre',
    async resolveId(source, _importer, options) {
      if (source !== '@plant-store/sdk' && !source.startsWith('@plant-store/sdk/')) return null;
      const resolved = await this.resolve(source, join(consumer, 'package.json'), { ...options, skipSelf: true });
      if (resolved) sdkResolutions.add(resolved.id);
      return resolved;
    },
  };
}

const TYPES: Record<string, string> = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.svg': 'image/svg+xml',
};

beforeAll(async () => {
  await run('npx', ['-y', 'pnpm@10.34.9', 'pack', '--pack-destination', work], { cwd: sdkDir });
  const tarball = join(work, readdirSync(work).find((name) => name.endsWith('.tgz'))!);
  mkdirSync(consumer);
  writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball], { cwd: consumer });

  await build({
    root: exampleDir,
    configFile: join(exampleDir, 'vite.config.ts'),
    logLevel: 'warn',
    plugins: [packedSdk()],
    build: { outDir: dist, emptyOutDir: true },
  });

  pageServer = createServer((request, response) => {
    const path = normalize(decodeURIComponent(new URL(request.url ?? '/', 'http://page').pathname));
    let file = join(dist, path);
    if (!file.startsWith(dist) || !statSync(file, { throwIfNoEntry: false })?.isFile()) file = join(dist, 'index.html');
    response.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
    response.end(readFileSync(file));
  });
  await new Promise<void>((resolve) => pageServer.listen(0, '127.0.0.1', resolve));
  pageOrigin = `http://127.0.0.1:${(pageServer.address() as AddressInfo).port}`;
  api = await startTestServer({ env: { CORS_ORIGINS: pageOrigin, RATE_LIMIT_MAX: '0' } });
  mock = await startMock();
  browser = await launchChromium();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await api?.close();
  if (mock && mock.child.exitCode === null) {
    mock.child.kill('SIGTERM');
    await mock.exited;
  }
  pageServer?.close();
  rmSync(work, { recursive: true, force: true });
});

/** The tarball's mock server, started as its README says (`npx plant-store-mock`), with a token of our choosing. */
async function startMock() {
  const port = await sparePort();
  const child = spawn(
    join(consumer, 'node_modules/.bin/plant-store-mock'),
    ['--port', String(port), '--token', 'mock-token'],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, PATH: userPath() } },
  );
  const { output, exited } = collectOutput(child);
  let ended = false;
  void exited.then(() => {
    ended = true;
  });
  await waitFor('the mock server to listen', () => ended || output().includes('token mock-token'));
  const url = /listening on (\S+)/.exec(output())?.[1];
  if (!url) throw new Error(`plant-store-mock did not start: ${output()}`);
  return { url, child, exited };
}

const listed = (page: Page) => page.getByRole('list', { name: 'plants' }).getByRole('listitem').allTextContents();

async function addPlant(page: Page, fields: { id: string; name: string; tag?: string }) {
  const form = page.getByRole('form', { name: 'add plant' });
  await form.getByLabel('Id').fill(fields.id);
  await form.getByLabel('Name').fill(fields.name);
  await form.getByLabel('Tag').fill(fields.tag ?? '');
  await form.getByRole('button', { name: 'Add' }).click();
  return form;
}

it('was built from the packed tarball installed with npm, not from the workspace', () => {
  const installed = realpathSync(join(consumer, 'node_modules/@plant-store/sdk'));
  // The entry and the TanStack helpers, each from the tarball's dist/ as npm unpacked it.
  expect([...sdkResolutions].map((id) => relative(installed, realpathSync(id))).sort()).toEqual([
    'dist/index.js',
    'dist/tanstack.js',
  ]);
});

it.each([
  ['the service', async () => ({ url: api.url, token: await api.token('web-user'), screenshot: 'e2e.png' })],
  ['plant-store-mock', async () => ({ url: mock.url, token: 'mock-token', screenshot: 'e2e-mock.png' })],
])(
  'adds, lists, pages and deletes plants, and explains a 409 and a 400, in Chromium against %s',
  async (_name, target) => {
    const { url, token, screenshot } = await target();
    const shot = join(outputDir, screenshot);
    const page = await browser.newPage({ viewport: { width: 900, height: 900 } });
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(String(error)));
    try {
      await page.goto(`${pageOrigin}/?api=${encodeURIComponent(url)}&token=${encodeURIComponent(token)}&pageSize=2`);
      await page.getByText('No plants yet.').waitFor();

      // Add four plants (one with the largest int64 id, which a JSON number cannot carry).
      for (const [id, name, tag] of [
        ['9223372036854775807', 'Cactus', 'desert'],
        ['1', 'Monstera', 'indoor'],
        ['2', 'Basil', 'herb'],
        ['3', 'Fern', ''],
      ] as const) {
        await addPlant(page, { id, name, tag });
        await page.getByText(`Added ${name} as id ${id}.`).waitFor();
      }

      // Two per page, ascending by id: "More" follows the Link cursor until the service sends none.
      await expect.poll(() => listed(page)).toEqual(['Monstera (indoor)', 'Basil (herb)']);
      const more = page.getByRole('button', { name: 'More' });
      await more.click();
      await expect.poll(() => listed(page)).toEqual(['Monstera (indoor)', 'Basil (herb)', 'Fern', 'Cactus (desert)']);
      // After a full last page the service may still send a Link: a further click then finds the end, and no "More".
      await expect
        .poll(async () => {
          if (await more.isVisible()) await more.click();
          return page.getByRole('button', { name: /^(More|Loading more…)$/ }).count();
        })
        .toBe(0);
      expect(await listed(page)).toHaveLength(4);

      // The ids this tab created are kept beside the list (a listed plant has none); delete one of them.
      const mine = page.getByRole('list', { name: 'added in this tab' }).getByRole('listitem');
      expect(await mine.allTextContents()).toEqual([
        '9223372036854775807: Cactus Delete',
        '1: Monstera Delete',
        '2: Basil Delete',
        '3: Fern Delete',
      ]);
      await page.getByRole('button', { name: 'delete 2' }).click();
      await page.getByText('Deleted plant 2.').waitFor();
      // Every page loaded so far is fetched again, each from the cursor of the one before: nothing shifts or repeats.
      await expect.poll(() => listed(page)).toEqual(['Monstera (indoor)', 'Fern', 'Cactus (desert)']);

      // A 409: the id is taken; the message says so and the id field is marked.
      const form = await addPlant(page, { id: '1', name: 'Another monstera' });
      const section = page.locator('section', { has: form });
      await expect
        .poll(() => section.getByRole('alert').textContent())
        .toBe('Could not add plant 1: a plant with this id already exists (409). Pick another id.');
      expect(await form.getByLabel('Id').getAttribute('aria-invalid')).toBe('true');

      // A 400 from the service: the tag is too long; body.details names the field, and only that field is marked.
      await addPlant(page, { id: '4', name: 'Mint', tag: 'x'.repeat(101) });
      await expect
        .poll(() => section.getByRole('alert').textContent())
        .toMatch(/^Could not add plant 4: .*tag.*\(400\)$/);
      expect(await form.getByLabel('Tag').getAttribute('aria-invalid')).toBe('true');
      expect(await form.getByLabel('Name').getAttribute('aria-invalid')).toBe('false');
      expect(await form.getByLabel('Id').getAttribute('aria-invalid')).toBe('false');
      expect(await form.getByText('tag must be at most 100 characters').isVisible()).toBe(true);

      mkdirSync(outputDir, { recursive: true });
      await page.screenshot({ path: shot, fullPage: true });
      expect(statSync(shot).size).toBeGreaterThan(10_000);
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  },
  90_000,
);
