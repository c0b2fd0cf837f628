// Webhook event ids come from a pool of random bytes refilled 256 ids at a time: each id is drawn once, across refills.
import { describe, expect, it } from 'vitest';
import { newPlantEvent } from '../../../src/store/outbox/event.js';

describe('newPlantEvent ids', () => {
  it('are msg_ and 16 random bytes in base64url, none repeated over several refills of the pool', () => {
    const ids = Array.from({ length: 2_000 }, (_, i) => newPlantEvent({ id: BigInt(i), name: 'fern' }).eventId);
    for (const id of ids) expect(id).toMatch(/^msg_[A-Za-z0-9_-]{22}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('keep the payload exact', () => {
    expect(newPlantEvent({ id: 9_007_199_254_740_993n, name: 'fern', tag: 'green' }).payload).toBe(
      '{"id":9007199254740993,"name":"fern","tag":"green"}',
    );
  });
});
