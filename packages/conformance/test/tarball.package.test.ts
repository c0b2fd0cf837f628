// Proves the tarball, not the source: pack the package with pnpm, then run the CI example of the manual as written
// (CI_EXAMPLE, read from docs/conformance.md: install the tarball with npm alone into an empty folder outside the
// workspace, no workspace package among its dependencies since the contract is bundled; run the command with npx
// against a started service, tokens from the environment, writing JUnit and the JSON report), its --help and a
// usage error, and the tarball's size the manual states.
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { startTestServer, type TestServer } from '@plant-store/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const packageDir = new URL('..', import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), 'plant-store-conformance-tarball-'));
const project = join(work, 'ci-job');
// npx and the command run on this Node (22 or newer), as a CI image's would.
const env = { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH}` };
let tarball: string;
let server: TestServer;

/** The heading of the manual's section whose first `sh` block is the CI example. */
const CI_HEADING = '## In CI: install the tarball, run two lines';

/** The lines of the first fenced `sh` block under `heading` in `markdown`. */
function ciExample(markdown: string, heading: string): string[] {
  const section = markdown.split(`\n${heading}\n`)[1];
  const block = section?.split('\n## ')[0]?.match(/^```sh\n([\s\S]*?)\n```$/m)?.[1];
  if (block === undefined) throw new Error(`no \`\`\`sh block under "${heading}"`);
  return block.split('\n');
}

const MANUAL = readFileSync(new URL('../../../docs/conformance.md', import.meta.url), 'utf8');

/** The manual's CI example, line by line, exactly as it is to be pasted into a CI job's script. */
const CI_EXAMPLE = ciExample(MANUAL, CI_HEADING);

/** Runs one line of the CI example in the job's folder with the job's environment. */
async function ciStep(line: string, jobEnv: Record<string, string>): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run('bash', ['-c', line], { cwd: project, env: { ...env, ...jobEnv } });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, output: failed.stdout + failed.stderr };
  }
}

async function npx(args: string[]): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run('npx', ['--no-install', 'plant-store-conformance', ...args], {
      cwd: project,
      env,
    });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, output: failed.stdout + failed.stderr };
  }
}

beforeAll(async () => {
  await run('npx', ['-y', 'pnpm@10.34.9', 'pack', '--pack-destination', work], { cwd: packageDir });
  tarball = join(work, readdirSync(work).find((name) => name.endsWith('.tgz'))!);
  mkdirSync(project);
  copyFileSync(tarball, join(project, 'plant-store-conformance-1.0.0.tgz'));
  const started = Date.now();
  const install = await ciStep(CI_EXAMPLE[0]!, {});
  expect(install.code, install.output).toBe(0);
  console.log(`conformance tarball: installed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  server = await startTestServer({ env: { RATE_LIMIT_MAX: '0' } });
}, 240_000);

afterAll(async () => {
  await server?.close();
  rmSync(work, { recursive: true, force: true });
});

describe('the packed conformance checker', () => {
  it('ships the bin, the bundle and the contract, and depends on no package at all', async () => {
    const { stdout } = await run('tar', ['-tzf', tarball]);
    const files = stdout.trim().split('\n');
    expect(files).toContain('package/bin/plant-store-conformance.js');
    expect(files).toContain('package/dist/cli.js');
    expect(files).toContain('package/dist/openapi.yaml');
    expect(files).toContain('package/README.md');
    expect(files.filter((file) => file.includes('/src/') || file.includes('/test/'))).toEqual([]);
    const installed = join(project, 'node_modules/@plant-store/conformance');
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'));
    // Everything it runs is bundled: nothing to fetch from the registry beyond the tarball itself.
    expect(manifest.dependencies).toBeUndefined();
    expect(manifest.engines).toEqual({ node: '>=22' });
    for (const name of readdirSync(join(installed, 'dist')).filter((file) => file.endsWith('.js'))) {
      expect(readFileSync(join(installed, 'dist', name), 'utf8')).not.toMatch(/from ["']@plant-store\//);
    }
    expect(readdirSync(join(project, 'node_modules')).filter((name) => !name.startsWith('.'))).toEqual([
      '@plant-store',
    ]);
    expect(readdirSync(join(project, 'node_modules/@plant-store'))).toEqual(['conformance']);
    expect(existsSync(join(project, 'node_modules/.bin/plant-store-conformance'))).toBe(true);
  });

  it('weighs what the manual says it does, within 10%', () => {
    // Every size the manual gives the tarball: "about N KB".
    const stated = [...MANUAL.matchAll(/about\s+(\d+)\s+KB/g)].map((match) => Number(match[1]) * 1000);
    expect(stated.length).toBeGreaterThanOrEqual(2);
    const bytes = statSync(tarball).size;
    console.log(`conformance tarball: ${bytes} bytes`);
    for (const figure of stated)
      expect(Math.abs(figure - bytes) / bytes, `${figure} vs ${bytes} bytes`).toBeLessThan(0.1);
  });

  it("takes its CI example from the manual: two lines, the same in the package's README", () => {
    expect(CI_EXAMPLE).toHaveLength(2);
    expect(readFileSync(join(packageDir, 'README.md'), 'utf8')).toContain(`\n${CI_EXAMPLE.join('\n')}\n`);
  });

  it('prints its usage with --help and exits 0', async () => {
    const help = await npx(['--help']);
    expect(help.code, help.output).toBe(0);
    expect(help.output).toContain('--base-url URL');
  });

  it('runs the CI example as written against a started service: exit 0, JUnit and JSON written, nothing left', async () => {
    const [token, second, reader] = await Promise.all([
      server.token('ci-example-a'),
      server.token('ci-example-b'),
      server.token('ci-example-reader', ['read']),
    ]);
    const started = Date.now();
    const result = await ciStep(CI_EXAMPLE[1]!, {
      BASE_URL: server.url,
      PLANT_STORE_TOKEN: token,
      PLANT_STORE_SECOND_TOKEN: second,
      PLANT_STORE_READ_TOKEN: reader,
    });
    console.log(`conformance tarball: the CI example's run took ${((Date.now() - started) / 1000).toFixed(1)} s`);
    expect(result.code, result.output).toBe(0);
    expect(result.output).toMatch(/^PASSED/m);
    expect(readFileSync(join(project, 'conformance.xml'), 'utf8')).toContain(
      '<testsuites name="plant-store conformance"',
    );
    const report = JSON.parse(readFileSync(join(project, 'conformance.json'), 'utf8'));
    expect(report).toMatchObject({ outcome: 'passed', failures: [], cleanup: { left: [] } });
    expect(report.replay).toMatch(/^plant-store-conformance --base-url /);
    for (const subject of ['ci-example-a', 'ci-example-b']) {
      const left = new TextDecoder().decode((await server.store.plants.list(subject, { limit: 10 })).body);
      expect(left).toBe('[]');
    }
  }, 120_000);

  it('exits 2 on a usage error', async () => {
    const result = await npx(['--token', 'x']);
    expect(result).toMatchObject({ code: 2, output: expect.stringContaining('--base-url URL is required') });
  });
});
