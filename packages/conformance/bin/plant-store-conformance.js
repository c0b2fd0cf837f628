#!/usr/bin/env node
// The `plant-store-conformance` command: checks a running Plant Store deployment against its contract (dist/, built
// from src/ by `pnpm build`). Exit code 0: every check passed; 1: a check failed; 2: usage error.
const major = Number(process.versions.node.split('.')[0]);
if (major < 22) {
  console.error(`plant-store-conformance: needs Node.js 22 or newer, and this is ${process.version}`);
  process.exit(2);
}
const { conformanceCommand } = await import('../dist/cli.js');
const io = {
  stdout: (line) => process.stdout.write(`${line}\n`),
  stderr: (line) => process.stderr.write(`${line}\n`),
  env: process.env,
  command: 'plant-store-conformance',
};
process.exitCode = await conformanceCommand(process.argv.slice(2), io);
