// A listed Plant carries no id (the contract's Plant shape has none), so a UI that wants to delete what it shows has
// to keep the ids it sent: create() answers with the plant without its id. This tab keeps them in sessionStorage,
// as text (int64 ids beyond 2^53 do not survive a JSON number), under a key per service and token.
import type { PlantId } from '@plant-store/sdk';

/** A plant this tab created: the id it sent, and the name and tag to show beside it. */
export interface CreatedPlant {
  id: string;
  name: string;
  tag?: string;
}

/** The ids this tab created, per service and token; sessionStorage when there is one, memory otherwise. */
export interface CreatedIds {
  list(): CreatedPlant[];
  add(plant: { id: PlantId | string; name: string; tag?: string | undefined }): CreatedPlant[];
  remove(id: PlantId | string): CreatedPlant[];
}

export function createdIds(key: string, storage: Pick<Storage, 'getItem' | 'setItem'> | undefined): CreatedIds {
  let memory: CreatedPlant[] = [];
  const storageKey = `plant-store-example:created:${key}`;
  const read = (): CreatedPlant[] => {
    if (!storage) return memory;
    try {
      const parsed: unknown = JSON.parse(storage.getItem(storageKey) ?? '[]');
      return Array.isArray(parsed) ? (parsed as CreatedPlant[]) : [];
    } catch {
      return [];
    }
  };
  const write = (plants: CreatedPlant[]) => {
    memory = plants;
    storage?.setItem(storageKey, JSON.stringify(plants));
    return plants;
  };
  return {
    list: read,
    add: ({ id, name, tag }) =>
      write([...read().filter((plant) => plant.id !== String(id)), { id: String(id), name, ...(tag ? { tag } : {}) }]),
    remove: (id) => write(read().filter((plant) => plant.id !== String(id))),
  };
}
