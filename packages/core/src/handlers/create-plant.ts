// createPlant: stores a new plant for the caller; an id the caller already has is a 409. With an Idempotency-Key the
// first answer is kept with the key (in the plant's transaction) and given again to repeats of the same request.
import { ApiError } from '@plant-store/contract';
import { fingerprintOf, keyReusedError, oneAtATime, REPLAYED_HEADERS } from '../idempotency/idempotency-key.js';
import type { Handler } from './handler.js';

const conflictMessage = (id: bigint) =>
  `a plant with id ${id} already exists; choose another id or delete that plant first`;

export const createPlant: Handler<'createPlant'> = async ({ principal, body, headers }, { store }) => {
  const plant = { id: BigInt(body.id), name: body.name, ...(body.tag === undefined ? {} : { tag: body.tag }) };
  const answer = { name: plant.name, ...(plant.tag === undefined ? {} : { tag: plant.tag }) };
  const key = headers['idempotency-key'];
  if (key === undefined) {
    if (!(await store.plants.create(principal.subject, plant))) throw new ApiError(409, conflictMessage(plant.id));
    return { status: 200, body: answer };
  }
  const fingerprint = await fingerprintOf(['createPlant', String(plant.id), plant.name, plant.tag ?? null]);
  return oneAtATime(store, principal.subject, key, async () => {
    const outcome = await store.plants.createOnce(principal.subject, plant, {
      key,
      fingerprint,
      created: JSON.stringify(answer),
      conflict: JSON.stringify({ error: 409, message: conflictMessage(plant.id) }),
      now: Date.now(),
    });
    if (outcome === true) return { status: 200 as const, body: answer };
    if (outcome === false) throw new ApiError(409, conflictMessage(plant.id));
    if (outcome.fingerprint !== fingerprint) throw keyReusedError();
    return { status: outcome.status, json: outcome.body, headers: { ...REPLAYED_HEADERS }, replayed: true as const };
  });
};
