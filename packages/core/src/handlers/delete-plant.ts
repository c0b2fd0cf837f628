// deletePlant: removes one of the caller's plants; an id the caller does not own is a 404, whoever owns it.
import { ApiError } from '@plant-store/contract';
import type { Handler } from './handler.js';

export const deletePlant: Handler<'deletePlant'> = async ({ principal, params }, { store }) => {
  const id = BigInt(params.id);
  const deleted = await store.plants.delete(principal.subject, id);
  if (!deleted) throw new ApiError(404, `no plant with id ${id} exists for this token's owner`);
  return { status: 204, body: undefined };
};
