// The workspace's packages depend on one another without a cycle (pnpm warns "There are cyclic workspace
// dependencies" at every install otherwise, and builds such packages in no defined order).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { parse } from 'yaml';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DEPENDENCY_FIELDS = ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies'] as const;

type Manifest = { name: string } & Partial<Record<(typeof DEPENDENCY_FIELDS)[number], Record<string, string>>>;

/** Every workspace package's manifest, from pnpm-workspace.yaml's `dir/*` globs. */
function workspaceManifests(): Manifest[] {
  const { packages } = parse(readFileSync(join(ROOT, 'pnpm-workspace.yaml'), 'utf8')) as { packages: string[] };
  return packages.flatMap((glob) => {
    const dir = join(ROOT, glob.replace(/\/\*$/, ''));
    return readdirSync(dir)
      .map((name) => join(dir, name, 'package.json'))
      .filter((file) => existsSync(file))
      .map((file) => JSON.parse(readFileSync(file, 'utf8')) as Manifest);
  });
}

/** The first cycle of workspace dependencies found, as package names (the first repeated at the end), or []. */
function firstCycle(manifests: Manifest[]): string[] {
  const edges = new Map(
    manifests.map((manifest) => [
      manifest.name,
      DEPENDENCY_FIELDS.flatMap((field) =>
        Object.entries(manifest[field] ?? {})
          .filter(([, version]) => version.startsWith('workspace:'))
          .map(([name]) => name),
      ),
    ]),
  );
  const done = new Set<string>();
  const walk = (name: string, path: string[]): string[] => {
    if (path.includes(name)) return [...path.slice(path.indexOf(name)), name];
    if (done.has(name)) return [];
    for (const next of edges.get(name) ?? []) {
      const cycle = walk(next, [...path, name]);
      if (cycle.length > 0) return cycle;
    }
    done.add(name);
    return [];
  };
  for (const name of edges.keys()) {
    const cycle = walk(name, []);
    if (cycle.length > 0) return cycle;
  }
  return [];
}

it('finds a cycle when one package depends back on another', () => {
  expect(
    firstCycle([
      { name: 'a', dependencies: { b: 'workspace:*' } },
      { name: 'b', devDependencies: { c: 'workspace:*', ajv: '^8' } },
      { name: 'c', dependencies: { a: 'workspace:*' } },
    ]),
  ).toEqual(['a', 'b', 'c', 'a']);
});

it('the workspace packages depend on each other without a cycle', () => {
  const manifests = workspaceManifests();
  expect(manifests.map((manifest) => manifest.name)).toContain('@plant-store/test-kit');
  expect(firstCycle(manifests)).toEqual([]);
});
