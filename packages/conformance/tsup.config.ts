import { copyFileSync } from 'node:fs';
import { defineConfig } from 'tsup';

// One ESM file per entry for Node 22+: the command (cli), the arbitraries the server's fuzz test shares and the proxy's
// answer to an unreadable request, which the test kit's broken deployments share (both workspace subpaths: the
// published package exports only the command). Everything it runs is bundled: the private @plant-store/contract (the
// generated facts, exact JSON, the document's reader) and @plant-store/core (did-you-mean), and fast-check, Ajv and
// yaml too, so the published package has no dependency and installs from its tarball alone, with no registry round trip
// (install time is the CI job's). openapi.yaml is copied beside the bundle, where the contract's reader looks when no
// repository is around it.
export default defineConfig({
  entry: {
    cli: 'src/cli.ts',
    'schema-arbitraries': 'src/schema-arbitraries.ts',
    'unreadable-request': 'src/proxy/unreadable-request.ts',
  },
  format: ['esm'],
  platform: 'node',
  target: 'node22',
  clean: true,
  splitting: true,
  noExternal: [/.*/],
  // Ajv and ajv-formats are CommonJS: their require() of each other is bundled; a require() of a Node built-in in
  // an ES module needs a real require.
  banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
  esbuildOptions(options) {
    options.conditions = ['source'];
  },
  onSuccess: async () => copyFileSync('../../openapi.yaml', 'dist/openapi.yaml'),
});
