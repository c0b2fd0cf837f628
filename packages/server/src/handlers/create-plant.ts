// createPlant: stores a new plant for the caller; an id the caller already has is a 409.
import { ApiError } from '@plant-store/contract';
import type { Handler } from './handler.js';

export const createPlant: Handler<'createPlant'> = async ({ principal, body }, { store }) => {
  const plant = { id: BigInt(body.id), name: body.name, ...(body.tag === undefined ? {} : { tag: body.tag }) };
  const created = await store.plants.create(principal.subject, plant);
  if (!created) {
    throw new ApiError(409, `a plant with id ${plant.id} already exists; choose another id or delete that plant first`);
  }
  return { status: 200, body: { name: plant.name, ...(plant.tag === undefined ? {} : { tag: plant.tag }) } };
};
