// The contract at run time: openapi.yaml read once, and the facts the server binds to (operations, their scope).
import { readFileSync } from 'node:fs';
import type { OperationId } from '@plant-store/contract';
import { parse } from 'yaml';
import type { Scope } from './store/store.js';

export const CONTRACT_PATH = new URL('../../../openapi.yaml', import.meta.url);

export interface ContractOperation {
  operationId: string;
  method: string;
  /** The OpenAPI path template, e.g. /plants/{id}. */
  path: string;
  /** The scope a token needs (x-required-scope), or null for an open operation. */
  scope: Scope | null;
  /** Names of the security schemes the operation requires. */
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

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];

export function loadContract(url: URL = CONTRACT_PATH): Contract {
  const yaml = readFileSync(url, 'utf8');
  const document = parse(yaml) as Record<string, unknown>;
  const globalSecurity = (document.security as SecurityRequirement[] | undefined) ?? [];
  const operations: ContractOperation[] = [];
  for (const [path, item] of Object.entries(document.paths as Record<string, Record<string, unknown>>)) {
    for (const method of METHODS) {
      const operation = item[method] as Record<string, unknown> | undefined;
      if (!operation) continue;
      const security = (operation.security as SecurityRequirement[] | undefined) ?? globalSecurity;
      operations.push({
        operationId: operation.operationId as OperationId,
        method: method.toUpperCase(),
        path,
        scope: (operation['x-required-scope'] as Scope | undefined) ?? null,
        securitySchemes: [...new Set(security.flatMap((requirement) => Object.keys(requirement)))],
        bodyRequired: (operation.requestBody as { required?: boolean } | undefined)?.required === true,
      });
    }
  }
  return Object.freeze({ yaml, json: JSON.stringify(document), document, operations: Object.freeze(operations) });
}
