// The read barrier's batching rule: one check in flight at a time, and a request asking while one is in flight
// waits for the next (the one in flight may have read the database before the request's write was acknowledged).
import { describe, expect, it } from 'vitest';
import { ReadBarrier } from '../../../src/store/postgres/read-barrier.js';

/** A check that answers when told to, recording which owners each one asked for. */
function manualChecks() {
  const sent: string[][] = [];
  const answers: ((versions: Map<string, string>) => void)[] = [];
  const barrier = new ReadBarrier((owners) => {
    sent.push([...owners]);
    return new Promise((resolve) => answers.push(resolve));
  });
  return {
    barrier,
    sent,
    answer: (versions: Record<string, string>) => answers.shift()!(new Map(Object.entries(versions))),
  };
}

describe('ReadBarrier', () => {
  it('sends at once when idle, and batches what is asked while a check is in flight into the next one', async () => {
    const { barrier, sent, answer } = manualChecks();
    const first = barrier.version('ann');
    expect(sent).toEqual([['ann']]);
    const second = barrier.version('ann');
    const third = barrier.version('ben');
    expect(sent).toHaveLength(1);
    answer({ ann: '3' });
    expect(await first).toBe('3');
    // The second asked while the first check was in flight: the first's answer is not enough for it.
    expect(sent).toEqual([['ann'], ['ann', 'ben']]);
    answer({ ann: '4' });
    expect(await second).toBe('4');
    expect(await third).toBe('0');
  });

  it('fails every request of a failed check, and goes on with the next batch', async () => {
    const failing = new ReadBarrier(() => Promise.reject(new Error('down')));
    await expect(failing.version('ann')).rejects.toThrow('down');
    await expect(failing.version('ann')).rejects.toThrow('down');
  });
});
