// Which operation of the contract a request is: its path matched against the contract's path templates (the rule the
// service and the testing kit route by), then its method; HEAD is the GET of its path (the contract's HEAD rule). The
// contract the service serves beside its operations is a route of its own.
import { OPERATIONS, type OperationFacts, pathPattern, SERVED_CONTRACT_PATH } from '@plant-store/contract';
import type { ConformanceContract, ContractOperation } from '../contract.js';

export interface Route {
  kind: 'operation';
  operation: ContractOperation;
  facts: OperationFacts;
  /** The path parameters, percent-decoded. */
  path: Record<string, string>;
}

export type Routing =
  | Route
  /** A GET or HEAD of the served contract (SERVED_CONTRACT_PATH): the service's document, no operation of it. */
  | { kind: 'served-contract' }
  | { kind: 'undeclared-path' }
  | { kind: 'undeclared-method'; allowed: string[] };

interface Template {
  pattern: RegExp;
  names: string[];
  operations: ContractOperation[];
}

export type Router = (method: string, pathname: string) => Routing;

function decoded(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/** Routes requests to the operations of `contract`, whose facts come from the generated OPERATIONS. */
export function routerOf(contract: ConformanceContract): Router {
  const templates = new Map<string, Template>();
  for (const operation of contract.operations) {
    let template = templates.get(operation.path);
    if (!template) {
      template = { ...pathPattern(operation.path), operations: [] };
      templates.set(operation.path, template);
    }
    template.operations.push(operation);
  }
  const facts = new Map<string, OperationFacts>(OPERATIONS.map((entry) => [entry.operationId, entry]));
  return (method, pathname) => {
    if (pathname === SERVED_CONTRACT_PATH && (method === 'GET' || method === 'HEAD'))
      return { kind: 'served-contract' };
    for (const template of templates.values()) {
      const match = template.pattern.exec(pathname);
      if (!match) continue;
      const wanted = method === 'HEAD' ? 'GET' : method;
      const operation = template.operations.find((candidate) => candidate.method === wanted);
      if (!operation) {
        const allowed = template.operations.map((candidate) => candidate.method);
        return { kind: 'undeclared-method', allowed: allowed.includes('GET') ? [...allowed, 'HEAD'] : allowed };
      }
      const path: Record<string, string> = {};
      template.names.forEach((name, index) => {
        path[name] = decoded(match[index + 1] ?? '') ?? (match[index + 1] as string);
      });
      return { kind: 'operation', operation, facts: facts.get(operation.operationId) as OperationFacts, path };
    }
    return { kind: 'undeclared-path' };
  };
}
