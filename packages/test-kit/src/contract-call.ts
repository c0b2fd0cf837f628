// Test support: inject a request and check the answer against the contract before the test looks at it.
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { type ContractValidator, createContractValidator } from './contract-validator.js';

let validator: ContractValidator | undefined;

export interface Call {
  method: 'GET' | 'POST' | 'DELETE' | 'PUT' | 'PATCH' | 'HEAD' | 'OPTIONS';
  url: string;
  /** The contract path the URL belongs to; omit for routes outside the contract. */
  path?: '/plants' | '/plants/{id}';
  token?: string;
  /** An object is sent as JSON; a string is sent as is. */
  body?: unknown;
  headers?: Record<string, string>;
}

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  text: string;
  json(): unknown;
}

export async function call(app: FastifyInstance, request: Call): Promise<Answer> {
  validator ??= await createContractValidator();
  const headers: Record<string, string> = { ...request.headers };
  if (request.token !== undefined) headers.authorization = `Bearer ${request.token}`;
  let payload: string | undefined;
  if (request.body !== undefined) {
    payload = typeof request.body === 'string' ? request.body : JSON.stringify(request.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await app.inject({
    method: request.method,
    url: request.url,
    headers,
    ...(payload === undefined ? {} : { payload }),
  });
  const answer: Answer = {
    status: response.statusCode,
    headers: response.headers,
    text: response.body,
    json: () => JSON.parse(response.body),
  };
  if (request.path) {
    const problems = validator.check({ method: request.method, path: request.path, ...answer, body: answer.text });
    expect(problems, `${request.method} ${request.url}`).toEqual([]);
  } else if (answer.status >= 400) {
    expect(answer.json()).toEqual({ error: answer.status, message: expect.any(String) });
  }
  return answer;
}
