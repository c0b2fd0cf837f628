// Every server the bench starts runs in a session of its own (src/targets.ts, launch): Linux's scheduler shares a
// core between sessions first, so a server left in the bench's session would share its weight with wrk and the bench
// process, and its share of core 0 would depend on them.
import { readFileSync } from 'node:fs';
import { sparePort } from '@plant-store/test-kit/spare-port';
import { describe, expect, it } from 'vitest';
import { targets } from '../src/targets.js';

/** The session id of a process, field 6 of /proc/<pid>/stat. */
function sessionOf(pid: number | 'self'): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[3]);
}

describe('a bench server', () => {
  it('leads a session of its own, apart from the bench and its load generators', async () => {
    const bare = targets(false).find((target) => target.name.startsWith('bare Fastify'))!;
    const running = await bare.start(await sparePort());
    try {
      expect(sessionOf(running.pid)).toBe(running.pid);
      expect(sessionOf(running.pid)).not.toBe(sessionOf('self'));
    } finally {
      await running.stop();
    }
  }, 60_000);
});
