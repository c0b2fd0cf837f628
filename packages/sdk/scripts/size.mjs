// Prints the SDK's size as shipped to browsers, per public entry: each of dist/index.js, dist/testing.js and
// dist/tanstack.js bundled with its shared chunks, minified and gzipped, openapi-fetch and @tanstack/query-core
// excluded; openapi-fetch's own size next to it. Fails (exit 1) when the main entry is above the budget the README
// promises, or the testing kit above its own (it carries the contract's operation table and request rules, and the
// service's handlers and memory engine from @plant-store/core); the TanStack helpers are measured on their own.
// `--check` also fails when the README's size block states other figures; `--write` (`pnpm --filter @plant-store/sdk
// size`, which `pnpm gen` runs last, as a contract change moves the SDK's generated rows) rewrites that block. Nothing
// else writes it: the build and the tests only measure, so a tracked file never changes under a test run and the
// package tests check the README as committed.
import { readFileSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

// 5 KB until 1.2.0's safe retries and conditional lists (Idempotency-Key, the kept pages): 5.5 KB. 5.75 KB since the
// resource methods are built from the contract's generated SDK rows, which ship with it (5.61 KB measured). 6 KB since
// deadlines cover answer bodies and paging ends at a cursor cycle (5.74 KB measured), leaving room for the rows of a
// few operations more (a read by id and an update add 27 bytes).
const BUDGET_BYTES = 6 * 1024;
// The testing kit: 8 KB while it answered each operation with its own branch (6.6 KB measured). Since it runs the
// service's handlers, Idempotency-Key rules and memory engine instead (7.8 KB measured), 9 KB: room for a few more
// operations' handlers, which reach the kit with no edit of it, so one more must not fail the SDK's build.
const TESTING_BUDGET_BYTES = 9 * 1024;
const root = new URL('..', import.meta.url).pathname;
const gzipped = (code) => gzipSync(code, { level: 9 }).length;

async function bundled(contents) {
  const result = await build({
    stdin: { contents, resolveDir: root },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    external: ['openapi-fetch', '@tanstack/query-core'],
  });
  return gzipped(result.outputFiles[0].text);
}

const entries = {
  '@plant-store/sdk': await bundled("export * from './dist/index.js';"),
  '@plant-store/sdk/testing': await bundled("export * from './dist/testing.js';"),
  '@plant-store/sdk/tanstack': await bundled("export * from './dist/tanstack.js';"),
};
// openapi-fetch as a bundler would ship it, for context: the SDK's budget is counted on top of it.
const dependency = await build({
  stdin: {
    contents: "export * from 'openapi-fetch'; export { default } from 'openapi-fetch';",
    resolveDir: root,
  },
  bundle: true,
  minify: true,
  format: 'esm',
  platform: 'browser',
  write: false,
});
const openapiFetch = gzipped(dependency.outputFiles[0].text);

const kb = (bytes) => `${(bytes / 1024).toFixed(2)} KB`;
const main = entries['@plant-store/sdk'];
console.log(
  `@plant-store/sdk: ${kb(main)} min+gzip (${main} bytes) beyond openapi-fetch (${kb(openapiFetch)}); budget ${kb(BUDGET_BYTES)}`,
);
for (const name of ['@plant-store/sdk/testing', '@plant-store/sdk/tanstack']) {
  console.log(`${name}: ${kb(entries[name])} min+gzip (${entries[name]} bytes), measured on its own`);
}
// The README states the sizes once, between these markers, as this measurement found them: `--write` rewrites the
// block, and `--check` (the package tests) fails when it differs from a fresh measurement.
const README = new URL('../README.md', import.meta.url);
const START = '<!-- size: written by scripts/size.mjs --write -->';
const END = '<!-- /size -->';
const statement =
  `${START}\n**${kb(main)}** min+gzip (${main} bytes) on top of openapi-fetch, which is ${kb(openapiFetch)} itself ` +
  `(budget ${kb(BUDGET_BYTES)}). The subpaths, measured on their own: \`@plant-store/sdk/testing\` ` +
  `${kb(entries['@plant-store/sdk/testing'])} (budget ${kb(TESTING_BUDGET_BYTES)}), \`@plant-store/sdk/tanstack\` ` +
  `${kb(entries['@plant-store/sdk/tanstack'])}.\n${END}`;
const readme = readFileSync(README, 'utf8');
const block = new RegExp(`${START.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}[\\s\\S]*?${END}`);
if (!block.test(readme)) {
  console.error(`packages/sdk/README.md has no size block (${START} ... ${END})`);
  process.exit(1);
}
const updated = readme.replace(block, statement);
if (process.argv.includes('--check')) {
  if (updated !== readme) {
    console.error(
      'packages/sdk/README.md states another size than measured: run `pnpm --filter @plant-store/sdk size`',
    );
    process.exit(1);
  }
} else if (process.argv.includes('--write') && updated !== readme) writeFileSync(README, updated);

if (entries['@plant-store/sdk/testing'] > TESTING_BUDGET_BYTES) {
  console.error(`@plant-store/sdk/testing is over its ${kb(TESTING_BUDGET_BYTES)} budget`);
  process.exit(1);
}
if (main > BUDGET_BYTES) {
  console.error(`@plant-store/sdk is over its size budget by ${main - BUDGET_BYTES} bytes`);
  process.exit(1);
}
