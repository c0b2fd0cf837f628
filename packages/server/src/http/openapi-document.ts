// The contract at run time: openapi.yaml read once (served at /openapi.json and /openapi.yaml, and to the route
// binder), and the operations the server binds, from the contract's generated runtime facts.
import { OPERATIONS, type OperationFacts } from '@plant-store/contract';
import { OPENAPI_URL, readOpenApiDocument } from '@plant-store/contract/document';

export type ContractOperation = OperationFacts;

export interface Contract {
  readonly yaml: string;
  readonly json: string;
  readonly document: Record<string, unknown>;
  readonly operations: readonly ContractOperation[];
}

export function loadContract(url: URL = OPENAPI_URL): Contract {
  const { yaml, document } = readOpenApiDocument(url);
  return Object.freeze({ yaml, json: JSON.stringify(document), document, operations: OPERATIONS });
}
