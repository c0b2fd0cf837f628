#!/usr/bin/env node
// The `plant-store` command: runs the compiled CLI (`pnpm build` compiles src/ to dist/; `pnpm install` builds too).
import { existsSync } from 'node:fs';

const cli = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(cli)) {
  console.error('plant-store: the server is not built yet; run `pnpm build` at the repository root first');
  process.exit(2);
}
const { main } = await import(cli.href);
try {
  const code = await main(process.argv.slice(2));
  // -1: still serving; the process ends when the server closes.
  if (code >= 0) process.exitCode = code;
} catch (error) {
  console.error(`plant-store: ${error.message}`);
  process.exitCode = 1;
}
