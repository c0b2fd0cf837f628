#!/usr/bin/env node
// The `plant-store` command: runs the compiled CLI (`pnpm build` compiles src/ to dist/; `pnpm install` builds too).
import { existsSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import { missingArchiveFlags, missingServeFlags, SERVE_ENV } from './serve-flags.js';
import { keepTickShapes } from './tick-shapes.js';

// better-sqlite3 13 crashes on Node 20 rather than failing cleanly, so an old Node is turned away here, by name.
const major = Number(process.versions.node.split('.')[0]);
if (major < 22) {
  console.error(
    `plant-store: needs Node.js 22 or newer, and this is ${process.version}; run it through pnpm ` +
      '(`pnpm plant-store ...`), which uses the Node 24 pinned in the repository, or install Node 22+',
  );
  process.exit(2);
}

// A server, an export and an import size their memory themselves (serve-flags.js): the command re-executes this very
// process (same pid, so supervisors and signals are unaffected) with the flags it lacks.
const command = process.argv[2] ?? 'serve';
const missing =
  command === 'serve'
    ? missingServeFlags(process.execArgv, process.env)
    : ['export', 'import'].includes(command)
      ? missingArchiveFlags(process.execArgv, process.env)
      : [];
if (missing.length > 0 && typeof process.execve === 'function') {
  process.execve(process.execPath, [process.execPath, ...missing, ...process.execArgv, ...process.argv.slice(1)], {
    ...SERVE_ENV,
    ...process.env,
  });
}

// First thing in the process that runs the command (tick-shapes.js: nextTick's fast path, kept before start-up's
// collections can lose it).
keepTickShapes();

// An export is background work beside a serving process: at nice 10 the scheduler gives the service its CPU first
// (on 2 cores, 1M plants: the hot read's p99 during an export went from 8.4x the p99 without it to the figure in
// docs/deployment.md). Only ever lowered, never raised.
if (command === 'export') {
  try {
    setPriority(Math.max(getPriority(), 10));
  } catch {}
}

const cli = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(cli)) {
  console.error('plant-store: the server is not built yet; run `pnpm build` at the repository root first');
  process.exit(2);
}
const { main } = await import(cli.href);
// Once a command has finished (or start-up has failed), exit even if something it opened is still holding the event
// loop: a supervisor must see a failed start as an exit, within seconds (the timer is unref'd, so a process with
// nothing left open exits at once, as before).
const exitSoon = (code) => {
  process.exitCode = code;
  setTimeout(() => process.exit(code), 2_000).unref();
};
try {
  const code = await main(process.argv.slice(2));
  // -1: still serving; the process ends when the server closes.
  if (code >= 0) exitSoon(code);
} catch (error) {
  console.error(`plant-store: ${error.message}`);
  exitSoon(1);
}
