// Prints the SDK's size as shipped to browsers: dist/index.js minified and gzipped, without openapi-fetch.
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { transform } from 'esbuild';

const source = readFileSync(new URL('../dist/index.js', import.meta.url), 'utf8');
const { code } = await transform(source, { minify: true, format: 'esm', target: 'es2022' });
const bytes = gzipSync(code, { level: 9 }).length;
console.log(`@plant-store/sdk: ${(bytes / 1024).toFixed(2)} KB min+gzip (${bytes} bytes), openapi-fetch excluded`);
