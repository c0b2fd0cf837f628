// What a new operation takes, rehearsed: a copy of this tree gains getPlant (GET /plants/{id}) and updatePlant
// (PUT /plants/{id}) from fixtures/get-and-update-plant.patch, every hand-written edit they need (the contract, their
// handlers, the store's methods on each engine, the update's effect on cached pages) and their tests; then `pnpm gen`,
// the type check (and its failure with an engine's effect call left out) and those tests run in the copy.
// docs/contract-changes.md lists the same files.
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = new URL('../..', import.meta.url).pathname;
const PATCH = new URL('fixtures/get-and-update-plant.patch', import.meta.url).pathname;
const scratch = mkdtempSync(join(tmpdir(), 'plant-store-new-operation-'));
const tree = join(scratch, 'tree');

/** The environment of a command in the copy: this run's vitest variables left out, so the copy's vitest is its own. */
const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('VITEST')));
const inTree = (command: string, args: string[], timeout = 600_000) =>
  run(command, args, { cwd: tree, env, timeout, maxBuffer: 64 * 1024 * 1024 });
const pnpm = (...args: string[]) => inTree('npx', ['-y', 'pnpm@10.34.9', ...args]);

/** The files the patch touches, as `git apply --numstat` lists them. */
const patched = async () =>
  (await run('git', ['apply', '--numstat', PATCH], { cwd: ROOT })).stdout
    .trim()
    .split('\n')
    .map((line) => line.split('\t')[2]!);

beforeAll(async () => {
  // The tree as it is (tracked and untracked files, not ignored ones), with its installed packages hard-linked.
  const { stdout } = await run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT });
  for (const file of stdout.split('\0').filter(Boolean)) {
    if (!existsSync(join(ROOT, file))) continue; // deleted, not yet committed
    mkdirSync(dirname(join(tree, file)), { recursive: true });
    cpSync(join(ROOT, file), join(tree, file), { verbatimSymlinks: true });
  }
  const { stdout: modules } = await run(
    'find',
    ['.', '-name', 'node_modules', '-prune', '-not', '-path', '*/node_modules/*/*'],
    {
      cwd: ROOT,
    },
  );
  for (const folder of modules.trim().split('\n')) {
    mkdirSync(dirname(join(tree, folder)), { recursive: true });
    await run('cp', ['-al', folder, join(tree, folder)], { cwd: ROOT }).catch(() =>
      run('cp', ['-a', folder, join(tree, folder)], { cwd: ROOT }),
    );
  }
  await inTree('git', ['apply', PATCH]);
}, 300_000);

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('a new operation (getPlant, updatePlant) rehearsed on a copy of the tree', () => {
  it('takes the hand-written files docs/contract-changes.md lists, and nothing generated', async () => {
    const files = await patched();
    const manual = readFileSync(join(ROOT, 'docs/contract-changes.md'), 'utf8');
    for (const file of files) expect(manual, file).toContain(`\`${file}\``);
    expect(files.some((file) => file.includes('/generated/'))).toBe(false);
  });

  it('generates, builds and type-checks', async () => {
    await pnpm('gen');
    await pnpm('build');
    await pnpm('typecheck');
  }, 900_000);

  it("fails to compile, naming the engine, when an update's effect call is left out of any engine", async () => {
    // The update's one call naming its effect, on each engine, and what it becomes without it.
    const skips = [
      [
        'packages/core/src/store/memory-plants.ts',
        'plants.set(plant.id, { ...plant });\n        return touch(owner);',
        'plants.set(plant.id, { ...plant });\n        return true;',
      ],
      ['packages/server/src/store/sqlite/sqlite-store.ts', " &&\n              move(owner, 'update', plant.id)", ''],
      [
        'packages/server/src/store/postgres/postgres-store.ts',
        "changedLocally(owner, 'update', [plant.id], version)",
        'true',
      ],
    ] as const;
    const originals = skips.map(([file]) => readFileSync(join(tree, file), 'utf8'));
    try {
      skips.forEach(([file, call, without], index) => {
        expect(originals[index], file).toContain(call);
        writeFileSync(join(tree, file), originals[index]!.replace(call, without));
      });
      const failed = await inTree(join(tree, 'node_modules/.bin/tsc'), ['-b']).then(
        () => undefined,
        (error: { stdout?: string }) => error.stdout ?? '',
      );
      for (const [file] of skips) expect(failed, file).toContain(file);
    } finally {
      for (const [index, [file]] of skips.entries()) writeFileSync(join(tree, file), originals[index]!);
    }
  }, 900_000);

  /** Runs the copy's vitest on `projects` (and `files`, else every file of them); its JSON report's counts. */
  const vitestInTree = async (name: string, projects: string[], files: string[] = []) => {
    const report = join(scratch, `${name}.json`);
    await inTree(join(tree, 'node_modules/.bin/vitest'), [
      'run',
      ...projects.flatMap((project) => ['--project', project]),
      '--reporter=json',
      `--outputFile.json=${report}`,
      ...files,
    ]).catch((error: Error) => {
      if (!existsSync(report)) throw error;
    });
    const { numFailedTests, numPassedTests, testResults } = JSON.parse(readFileSync(report, 'utf8')) as {
      numFailedTests: number;
      numPassedTests: number;
      testResults: { name: string; assertionResults: { fullName: string; status: string }[] }[];
    };
    const failed = testResults.flatMap(({ name: file, assertionResults }) =>
      assertionResults.filter(({ status }) => status === 'failed').map(({ fullName }) => `${file}: ${fullName}`),
    );
    return { numFailedTests, numPassedTests, failed };
  };

  it("passes the new operations' tests: every engine, across processes, the SDK, TanStack, the checker", async () => {
    const tests = (await patched()).filter((file) => /\.test\.ts$/.test(file));
    expect(tests.length).toBeGreaterThanOrEqual(4);
    const projects = ['unit', 'integration', 'integration-memory', 'integration-postgres', 'system', 'system-postgres'];
    const { failed, numPassedTests } = await vitestInTree('new-tests', projects, tests);
    expect(failed).toEqual([]);
    // The integration file on three engines, the system files on two databases each, the SDK's two.
    expect(numPassedTests).toBeGreaterThanOrEqual(3 * 3 + 2 * 2 + 2);
  }, 900_000);

  it('leaves every unit and integration test passing: none pins the operations the contract had', async () => {
    const { failed, numPassedTests } = await vitestInTree('tiers', ['unit', 'integration']);
    expect(failed).toEqual([]);
    expect(numPassedTests).toBeGreaterThan(500);
  }, 900_000);
});
