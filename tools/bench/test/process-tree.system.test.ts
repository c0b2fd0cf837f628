// A server of several processes (`serve --workers N`) is measured as a whole: its CPU (src/cpu.ts) and its RSS
// (src/wrk.ts, treeRssMb) count the primary and every live descendant.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { waitFor } from '@plant-store/test-kit/wait';
import { describe, expect, it } from 'vitest';
import { treePids } from '../src/cpu.js';
import { rssMb, treeRssMb } from '../src/wrk.js';

describe('a process tree', () => {
  it('holds the root and its children, and its RSS is theirs together', async () => {
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30_000)'], { stdio: 'ignore' });
    try {
      await new Promise((resolve) => child.once('spawn', resolve));
      // Stopped, the child's RSS holds still between the two reads (a starting Node changes it by the millisecond).
      child.kill('SIGSTOP');
      await waitFor('the child stopped', () => /^\d+ \(.*\) T/.test(readFileSync(`/proc/${child.pid}/stat`, 'utf8')));
      const pids = treePids(process.pid);
      expect(pids[0]).toBe(process.pid);
      expect(pids).toContain(child.pid);
      expect(treeRssMb(process.pid)).toBeGreaterThan(rssMb(process.pid));
      expect(treePids(child.pid!)).toEqual([child.pid]);
      expect(treeRssMb(child.pid!)).toBe(rssMb(child.pid!));
    } finally {
      child.kill('SIGKILL');
    }
  });
});
