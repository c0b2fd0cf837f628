import { readdir, readFile, writeFile } from 'node:fs/promises';
import { defineConfig } from 'tsup';

// tsup's treeshake pass (rollup) appends a sourceMappingURL comment after esbuild's own: keep only the last one.
async function dropDuplicateSourceMapComments(): Promise<void> {
  const dist = new URL('./dist/', import.meta.url);
  for (const name of await readdir(dist)) {
    if (!/\.c?js$/.test(name)) continue;
    const text = await readFile(new URL(name, dist), 'utf8');
    const comments = text.match(/^\/\/# sourceMappingURL=.*$/gm) ?? [];
    if (comments.length < 2) continue;
    let seen = 0;
    const kept = text.replace(/^\/\/# sourceMappingURL=.*\n?/gm, (line) => (++seen < comments.length ? '' : line));
    await writeFile(new URL(name, dist), kept);
  }
}

// ESM + CommonJS with declarations, one entry per public subpath: `.` (the client), `./testing` (the fake service,
// kept out of production bundles) and `./tanstack` (TanStack Query options). The contract's generated types are
// inlined so the published .d.ts files do not point at the private @plant-store/contract package, whose run-time
// code (the int64 bounds; for the testing kit the operation facts and request rules) is bundled, as is the private
// @plant-store/core's (the service's handlers and memory engine, for the testing kit alone): neither is ever a
// dependency of the published package. openapi-fetch and @tanstack/query-core stay external.
// The `plant-store-mock` bin is a second build: ESM for Node only (its node: imports stay imports), no declarations.
// Neither cleans dist/ (the two run at once): the package's build script empties it first.
const library = defineConfig({
  entry: { index: 'src/index.ts', testing: 'src/testing/index.ts', tanstack: 'src/tanstack.ts' },
  format: ['esm', 'cjs'],
  dts: {
    entry: { index: 'src/index.ts', testing: 'src/testing/index.ts', tanstack: 'src/tanstack.ts' },
    resolve: true,
    // tsconfig.json is a composite project for `tsc -b`; the declaration bundle is a plain program.
    compilerOptions: {
      composite: false,
      baseUrl: '.',
      paths: {
        '@plant-store/contract': ['../contract/src/index.ts'],
        '@plant-store/core': ['../core/src/index.ts'],
      },
    },
  },
  clean: false,
  sourcemap: true,
  target: 'es2022',
  platform: 'neutral',
  external: ['openapi-fetch', '@tanstack/query-core', /^node:/],
  // Each entry self-contained (no shared chunk): the testing kit copies the few rules it shares with the client.
  splitting: false,
  // Rollup's pass keeps openapi-fetch's CommonJS default export working from dist/index.cjs (esbuild alone would
  // read it the Node way, as the whole exports object, because this package is "type": "module").
  treeshake: true,
  onSuccess: dropDuplicateSourceMapComments,
});

export default [
  library,
  defineConfig({
    entry: { 'plant-store-mock': 'bin/plant-store-mock.ts' },
    format: ['esm'],
    clean: false,
    sourcemap: true,
    target: 'es2022',
    platform: 'node',
    external: ['openapi-fetch', /^node:/],
    splitting: false,
  }),
];
