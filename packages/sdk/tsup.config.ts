import { defineConfig } from 'tsup';

// ESM + CommonJS with declarations; the contract's generated types are inlined so the published .d.ts files do not
// point at the private @plant-store/contract package, whose little run-time code (the int64 bounds) is bundled.
// openapi-fetch stays an external runtime dependency.
export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm', 'cjs'],
  dts: {
    resolve: true,
    // tsconfig.json is a composite project for `tsc -b`; the declaration bundle is a plain program.
    compilerOptions: {
      composite: false,
      baseUrl: '.',
      paths: { '@plant-store/contract': ['../contract/src/index.ts'] },
    },
  },
  clean: true,
  sourcemap: true,
  target: 'es2022',
  platform: 'neutral',
  external: ['openapi-fetch'],
  treeshake: true,
});
