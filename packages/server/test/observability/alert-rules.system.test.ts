// The Prometheus alert rules shipped in deploy/prometheus: promtool loads them and passes their unit tests on
// synthetic series, and every metric they read is one the service exports (on PostgreSQL, with webhooks), so a
// renamed metric cannot leave an alert silently reading nothing. Needs Debian's prometheus package (promtool).
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createTestDatabase } from '@plant-store/test-kit';
import { Registry } from 'prom-client';
import { expect, it } from 'vitest';
import { createMetrics } from '../../src/observability/metrics.js';
import { watchWebhooks } from '../../src/observability/webhook-metrics.js';
import { openStore } from '../../src/store/open-store.js';

const run = promisify(execFile);
const folder = fileURLToPath(new URL('../../../../deploy/prometheus/', import.meta.url));
const PROMTOOL = '/usr/bin/promtool';

function promtool(...args: string[]) {
  if (!existsSync(PROMTOOL)) {
    throw new Error(`promtool is not installed (${PROMTOOL}): apt-get install -y prometheus (.ci/run installs it)`);
  }
  return run(PROMTOOL, args, { cwd: folder, timeout: 60_000 });
}

it('loads with promtool check rules', async () => {
  const { stdout } = await promtool('check', 'rules', 'plant-store.rules.yml');
  expect(stdout).toMatch(/SUCCESS: \d+ rules found/);
});

it('passes its promtool unit tests on synthetic series', async () => {
  const { stdout, stderr } = await promtool('test', 'rules', 'plant-store.rules.test.yml');
  expect(`${stdout}${stderr}`).toContain('SUCCESS');
});

it('reads only metrics the service exports', async () => {
  const database = createTestDatabase('postgres');
  const store = await openStore(database.url);
  try {
    await store.migrate();
    const metrics = createMetrics();
    metrics.watchStore(store);
    const webhooks = new Registry();
    watchWebhooks(webhooks, store.webhooks);
    const exported = new Set([
      'up',
      ...(await metrics.registry.getMetricsAsJSON()).map((metric) => metric.name),
      ...(await webhooks.getMetricsAsJSON()).map((metric) => metric.name),
    ]);
    const rules = await readFile(`${folder}plant-store.rules.yml`, 'utf8');
    const read = new Set(
      [...rules.matchAll(/\b((?:up|http_server|plant_store|nodejs|process)\w*)\{/g)].map(([, name]) =>
        name!.replace(/_(count|bucket|sum)$/, ''),
      ),
    );
    expect(read.size).toBeGreaterThan(5);
    expect([...read].filter((name) => !exported.has(name))).toEqual([]);
  } finally {
    await store.close();
    await database.drop();
  }
});
