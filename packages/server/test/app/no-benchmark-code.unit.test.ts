// The service holds no benchmark code (issue 29 item 1): the bench lives beside it in tools/bench and builds its
// variants through buildApp's general options, so no file under packages/server/src names it, and no variable the
// service reads can switch a layer off (PLANT_STORE_BENCH_OFF=auth once skipped revocation in a running service).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

it('has no file under packages/server/src that names a bench', () => {
  const files = readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter((path) => path.endsWith('.ts'));
  expect(files.length).toBeGreaterThan(50);
  const naming = files.filter((path) => /bench/i.test(path) || /bench/i.test(readFileSync(join(SRC, path), 'utf8')));
  expect(naming).toEqual([]);
});

it('reads no bench switch from the environment: the configuration is the same with or without one', () => {
  const env = { DATABASE_URL: 'memory:' };
  expect(loadConfig({ ...env, PLANT_STORE_BENCH_OFF: 'auth,validation,no-such-layer' })).toEqual(loadConfig(env));
});
