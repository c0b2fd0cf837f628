// The workers stage's profile summary (src/cpu-profiles.ts): self time per function summed over a folder's profiles,
// main threads only, each sample charged the time delta that follows it, the idle loop left out.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { showSummary, summariseProfiles } from '../src/cpu-profiles.js';

const dir = mkdtempSync(join(tmpdir(), 'plant-store-cpu-profiles-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const frame = (functionName: string, url = '', lineNumber = -1) => ({ functionName, url, lineNumber });
const profile = (samples: number[], timeDeltas: number[]) => ({
  nodes: [
    { id: 1, callFrame: frame('(root)') },
    { id: 2, callFrame: frame('(idle)') },
    { id: 3, callFrame: frame('list', 'file:///repo/packages/server/dist/store/sqlite/sqlite-store.js', 9) },
    {
      id: 4,
      callFrame: frame(
        'run',
        'file:///repo/node_modules/.pnpm/better-sqlite3@13.2.0/node_modules/better-sqlite3/lib/x.js',
        0,
      ),
    },
    { id: 5, callFrame: frame('(garbage collector)') },
  ],
  samples,
  timeDeltas,
});

it('sums self time by function over every profile in the folder, without the idle loop', () => {
  writeFileSync(
    join(dir, 'CPU.20261127.035448.29003.0.001.cpuprofile'),
    JSON.stringify(profile([3, 3, 4, 2, 5], [0, 1000, 1000, 2000, 9000, 500])),
  );
  writeFileSync(
    join(dir, 'CPU.20261127.035449.29004.0.001.cpuprofile'),
    JSON.stringify(profile([4, 3], [0, 3000, 1000])),
  );
  // A worker thread's (thread 1): its time blocked in a call is wall time, not work.
  writeFileSync(join(dir, 'CPU.20261127.035449.29004.1.002.cpuprofile'), JSON.stringify(profile([3], [0, 50_000])));
  writeFileSync(join(dir, 'notes.txt'), 'not a profile');
  const summary = summariseProfiles(dir);
  expect(summary.profiles).toBe(2);
  expect(summary.functions).toEqual([
    { name: 'run better-sqlite3/lib/x.js:1', ms: 5 },
    { name: 'list packages/server/dist/store/sqlite/sqlite-store.js:10', ms: 3 },
    { name: '(garbage collector)', ms: 0.5 },
  ]);
  expect(summary.totalMs).toBe(8.5);
  const text = showSummary('workers 2', summary, 2);
  expect(text.split('\n')).toEqual([
    'workers 2: 2 profiles, 9 ms sampled (idle left out)',
    '   58.8%        5 ms  run better-sqlite3/lib/x.js:1',
    '   35.3%        3 ms  list packages/server/dist/store/sqlite/sqlite-store.js:10',
  ]);
});
