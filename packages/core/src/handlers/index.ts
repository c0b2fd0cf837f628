// The handler map, keyed by operationId: `satisfies Handlers` makes a missing or misspelled operation a compile error.
import { createPlant } from './create-plant.js';
import { deletePlant } from './delete-plant.js';
import { getPlants } from './get-plants.js';
import type { Handlers } from './handler.js';

export const handlers = { createPlant, getPlants, deletePlant } satisfies Handlers;
