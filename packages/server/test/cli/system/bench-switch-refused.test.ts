// `serve` refuses a bench switch that weakens security (issue 27 item 4): PLANT_STORE_BENCH_OFF=auth once left
// revoked and expired tokens accepted in a real deployment. Start-up must stop with a clear error and a non-zero
// exit, before anything listens; the bench builds such variants itself (scripts/bench/variant-server.ts).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { WEAKENING_LAYERS } from '../../../src/config.js';
import { BIN } from '../../support/process.js';

async function serve(env: Record<string, string>): Promise<{ code: number; stderr: string }> {
  try {
    await promisify(execFile)(process.execPath, [BIN, 'serve'], {
      env: { ...process.env, DATABASE_URL: 'memory:', PORT: '0', METRICS_PORT: 'off', ...env },
      timeout: 20_000,
    });
    return { code: 0, stderr: '' };
  } catch (error) {
    const failure = error as { code: number; stderr: string };
    return { code: failure.code, stderr: failure.stderr };
  }
}

describe('serve with a bench switch that weakens security', () => {
  it.each(Object.keys(WEAKENING_LAYERS))('refuses PLANT_STORE_BENCH_OFF=%s at start-up and exits 2', async (name) => {
    const { code, stderr } = await serve({ PLANT_STORE_BENCH_OFF: name });
    expect(code).toBe(2);
    expect(stderr).toContain(
      `plant-store: configuration error: PLANT_STORE_BENCH_OFF=${name} is refused: it weakens the service's security`,
    );
  });
});
