// Prints the SDK's size as shipped to browsers: dist/index.js minified and gzipped, openapi-fetch excluded, next to
// openapi-fetch's own. Fails (exit 1) above the budget the README promises.
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { build, transform } from 'esbuild';

const BUDGET_BYTES = 5 * 1024;
const gzipped = (code) => gzipSync(code, { level: 9 }).length;

const source = readFileSync(new URL('../dist/index.js', import.meta.url), 'utf8');
const { code } = await transform(source, { minify: true, format: 'esm', target: 'es2022' });
const sdk = gzipped(code);
// openapi-fetch as a bundler would ship it, for context: the SDK's budget is counted on top of it.
const dependency = await build({
  stdin: {
    contents: "export * from 'openapi-fetch'; export { default } from 'openapi-fetch';",
    resolveDir: new URL('..', import.meta.url).pathname,
  },
  bundle: true,
  minify: true,
  format: 'esm',
  platform: 'browser',
  write: false,
});
const openapiFetch = gzipped(dependency.outputFiles[0].text);

const kb = (bytes) => `${(bytes / 1024).toFixed(2)} KB`;
console.log(
  `@plant-store/sdk: ${kb(sdk)} min+gzip (${sdk} bytes) beyond openapi-fetch (${kb(openapiFetch)}); budget ${kb(BUDGET_BYTES)}`,
);
if (sdk > BUDGET_BYTES) {
  console.error(`@plant-store/sdk is over its size budget by ${sdk - BUDGET_BYTES} bytes`);
  process.exit(1);
}
