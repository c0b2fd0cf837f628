// An independent check of answers against openapi.yaml: compiled here with its own Ajv, not the server's serializer.
// Used by tests to assert every response is one the contract declares.

import SwaggerParser from '@apidevtools/swagger-parser';
import { OPENAPI_PATH } from '@plant-store/contract/document';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

interface ResponseObject {
  headers?: Record<string, unknown>;
  content?: Record<string, { schema: object }>;
}

interface Operation {
  operationId: string;
  responses: Record<string, ResponseObject>;
}

export interface AnswerToCheck {
  method: string;
  /** The path template, e.g. /plants/{id}. */
  path: string;
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  /** Raw body text. */
  body: string;
}

export interface ContractValidator {
  /** Problems with the answer; empty when the contract declares it exactly. */
  check(answer: AnswerToCheck): string[];
}

export async function createContractValidator(): Promise<ContractValidator> {
  const document = (await SwaggerParser.dereference(OPENAPI_PATH)) as unknown as {
    paths: Record<string, Record<string, Operation>>;
  };
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  const cache = new Map<object, ValidateFunction>();
  const compile = (schema: object) => {
    let validate = cache.get(schema);
    if (!validate) {
      validate = ajv.compile(schema);
      cache.set(schema, validate);
    }
    return validate;
  };

  return {
    check({ method, path, status, headers, body }) {
      const operation = document.paths[path]?.[method.toLowerCase()];
      if (!operation) return [`${method} ${path} is not an operation of the contract`];
      const where = `${operation.operationId} ${status}`;
      const declared = operation.responses[String(status)] ?? operation.responses.default;
      if (!declared) return [`${where}: status not declared`];
      const problems: string[] = [];
      const contentType = String(headers['content-type'] ?? '');
      if (!declared.content) {
        if (body.length > 0) problems.push(`${where}: declares no body but got ${JSON.stringify(body.slice(0, 80))}`);
        return problems;
      }
      const media = declared.content['application/json'];
      if (!media || !contentType.startsWith('application/json')) {
        return [`${where}: content type ${contentType || '(none)'} not declared`];
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(body);
      } catch {
        return [`${where}: body is not JSON: ${body.slice(0, 80)}`];
      }
      const validate = compile(media.schema);
      if (!validate(parsed))
        problems.push(`${where}: body ${body.slice(0, 120)} fails its schema: ${ajv.errorsText(validate.errors)}`);
      if (status >= 300) {
        const error = parsed as { error?: unknown };
        if (error.error !== status) problems.push(`${where}: Error.error is ${String(error.error)}, not the status`);
      }
      // The rate limit's headers come all together or, with the per-principal limit off (RATE_LIMIT_MAX=0), not at all.
      const rateLimit = Object.keys(declared.headers ?? {}).filter((name) => /^x-ratelimit-/i.test(name));
      const limited = rateLimit.some((name) => headers[name.toLowerCase()] !== undefined);
      for (const name of Object.keys(declared.headers ?? {})) {
        if (name.toLowerCase() === 'link' && status === 200) continue; // only present when more pages follow
        if (name.toLowerCase() === 'idempotent-replayed') continue; // only on a replayed answer
        if (name.toLowerCase() === 'retry-after' && status === 409) continue; // only while the same key is in flight
        if (rateLimit.includes(name) && !limited) continue;
        if (headers[name.toLowerCase()] === undefined) problems.push(`${where}: header ${name} missing`);
      }
      return problems;
    },
  };
}
