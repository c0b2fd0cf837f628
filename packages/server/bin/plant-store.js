#!/usr/bin/env node
// The `plant-store` command: runs the compiled CLI (`pnpm build` compiles src/ to dist/; `pnpm install` builds too).
import { existsSync } from 'node:fs';

const cli = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(cli)) {
  console.error('plant-store: the server is not built yet; run `pnpm build` at the repository root first');
  process.exit(2);
}
await import(cli.href);
