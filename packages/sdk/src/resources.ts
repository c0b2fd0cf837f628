// The client's resources (`client.plants`), one method per operation of the contract, built from its generated SDK
// rows: nothing here names an operation, so `pnpm gen` after a new operation in openapi.yaml adds its method.
import { SDK_OPERATIONS, type SdkOperationFacts } from '@plant-store/contract';
import { operationMethod, type RequestContext } from './operation-method.js';
import { pagedMethods } from './paged-list.js';
import type { PlantStoreResources } from './resource-types.js';

export function createResources(context: RequestContext): PlantStoreResources {
  const resources: Record<string, Record<string, unknown>> = {};
  for (const row of SDK_OPERATIONS as readonly SdkOperationFacts[]) {
    const methods = row.paged ? pagedMethods(row, context) : { [row.name]: operationMethod(row, context) };
    resources[row.resource] = { ...resources[row.resource], ...methods };
  }
  return resources as unknown as PlantStoreResources;
}
