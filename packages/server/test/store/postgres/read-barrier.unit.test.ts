// The read barrier's batching rule: one check per event-loop turn, sent after the turn's I/O, for every request that
// asked in it; a request never trusts a check sent before it asked (that check may have read the database before the
// request's write was acknowledged), and a turn's check does not wait for the one still in flight.
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

/** Lets the current turn end, so a check scheduled in it is sent. */
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

/** Whether `promise` has settled by now (its callbacks run first). */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(
    () => (done = true),
    () => (done = true),
  );
  await nextTurn();
  return done;
}

describe('ReadBarrier', () => {
  it('sends one check for every request of a turn, once the turn is over', async () => {
    const { barrier, sent, answer } = manualChecks();
    const asked = [barrier.version('ann'), barrier.version('ben'), barrier.version('ann')];
    expect(sent).toEqual([]);
    await nextTurn();
    expect(sent).toEqual([['ann', 'ben']]);
    answer({ ann: '3' });
    expect(await Promise.all(asked)).toEqual(['3', '0', '3']);
    expect(sent).toHaveLength(1);
  });

  it('answers a request only with a check sent after it asked, without waiting for the one in flight', async () => {
    const { barrier, sent, answer } = manualChecks();
    const first = barrier.version('ann');
    await nextTurn();
    expect(sent).toEqual([['ann']]);
    // Asked while the first check is in flight: that check may have read the database before this request's write.
    const second = barrier.version('ann');
    await nextTurn();
    expect(sent).toEqual([['ann'], ['ann']]);
    answer({ ann: '3' });
    expect(await first).toBe('3');
    expect(await settled(second)).toBe(false);
    answer({ ann: '4' });
    expect(await second).toBe('4');
  });

  it('fails every request of a failed check, and goes on with the next', async () => {
    const failing = new ReadBarrier(() => Promise.reject(new Error('down')));
    await expect(Promise.all([failing.version('ann'), failing.version('ben')])).rejects.toThrow('down');
    await expect(failing.version('ann')).rejects.toThrow('down');
  });
});
