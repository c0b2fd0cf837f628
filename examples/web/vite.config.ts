// The example's build: Vite compiles the .tsx itself (no React plugin needed: Oxc's automatic JSX runtime).
import { defineConfig } from 'vite';

export default defineConfig({
  oxc: { jsx: { runtime: 'automatic' } },
  // VITE_PLANT_STORE_URL and VITE_PLANT_STORE_TOKEN prefill the connection form (see src/main.tsx).
  envPrefix: 'VITE_',
  build: {
    target: 'es2022',
    rolldownOptions: {
      // TanStack's "use client" directives mean nothing in a client-only bundle.
      onwarn(warning, warn) {
        if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning);
      },
    },
  },
});
