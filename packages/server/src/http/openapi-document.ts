// The contract at run time: openapi.yaml read once, and the facts the server binds to (operations, their scope).
import { type OperationId, operationsOf, type Scope } from '@plant-store/contract';
import { OPENAPI_URL, readOpenApiDocument } from '@plant-store/contract/document';

export interface ContractOperation {
  operationId: OperationId;
  /** Upper case, as HTTP writes it. */
  method: string;
  /** The OpenAPI path template, e.g. /plants/{id}. */
  path: string;
  /** The scope a token needs (x-required-scope), or null for an open operation. */
  scope: Scope | null;
  /** Names of the security schemes the operation requires; empty for an open operation. */
  securitySchemes: string[];
  /** Whether the operation requires a request body. */
  bodyRequired: boolean;
}

export interface Contract {
  readonly yaml: string;
  readonly json: string;
  readonly document: Record<string, unknown>;
  readonly operations: readonly ContractOperation[];
}

type SecurityRequirement = Record<string, string[]>;

interface Operation {
  operationId: OperationId;
  security?: SecurityRequirement[];
  requestBody?: { required?: boolean };
  'x-required-scope'?: Scope;
}

export function loadContract(url: URL = OPENAPI_URL): Contract {
  const { yaml, document } = readOpenApiDocument(url);
  const globalSecurity = (document.security as SecurityRequirement[] | undefined) ?? [];
  const operations = operationsOf<Operation>(document).map(
    ({ path, method, operation }): ContractOperation => ({
      operationId: operation.operationId,
      method: method.toUpperCase(),
      path,
      scope: operation['x-required-scope'] ?? null,
      securitySchemes: [
        ...new Set((operation.security ?? globalSecurity).flatMap((requirement) => Object.keys(requirement))),
      ],
      bodyRequired: operation.requestBody?.required === true,
    }),
  );
  return Object.freeze({ yaml, json: JSON.stringify(document), document, operations: Object.freeze(operations) });
}
