import { copyFileSync } from 'node:fs';
import { defineConfig } from 'tsup';

// One ESM file per entry for Node 22+: the command (cli) and the arbitraries the server's fuzz test shares. The private
// @plant-store/contract (the generated facts, exact JSON, the document's reader) and @plant-store/core (did-you-mean)
// are bundled, and openapi.yaml is copied beside them (the contract's reader looks there when no repository is around
// it), so the published package depends on no workspace package. fast-check, Ajv and yaml stay dependencies.
export default defineConfig({
  entry: { cli: 'src/cli.ts', 'schema-arbitraries': 'src/schema-arbitraries.ts' },
  format: ['esm'],
  platform: 'node',
  target: 'node22',
  clean: true,
  sourcemap: true,
  splitting: true,
  noExternal: ['@plant-store/contract', '@plant-store/core'],
  external: ['fast-check', 'ajv', 'ajv-formats', 'yaml'],
  esbuildOptions(options) {
    options.conditions = ['source'];
  },
  onSuccess: async () => copyFileSync('../../openapi.yaml', 'dist/openapi.yaml'),
});
