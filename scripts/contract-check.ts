// `pnpm contract:check [document] [--base released.yaml]`: validates the contract (swagger-parser), lints it
// (Redocly plus this project's own rules), and fails on changes that break clients of the released contract.
// Usable from any CI: exit code 1 and a FAIL line per check when something is wrong.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import SwaggerParser from '@apidevtools/swagger-parser';
import { parse } from 'yaml';
import { findBreakingChanges } from './breaking-changes.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

interface CheckResult {
  name: string;
  problems: string[];
}

function load(path: string): object {
  return parse(readFileSync(path, 'utf8')) as object;
}

async function validate(path: string): Promise<CheckResult> {
  try {
    await SwaggerParser.validate(structuredClone(load(path)) as never);
    return { name: 'valid OpenAPI document (swagger-parser)', problems: [] };
  } catch (error) {
    return { name: 'valid OpenAPI document (swagger-parser)', problems: [(error as Error).message] };
  }
}

function redocly(path: string): CheckResult {
  const bin = resolve(root, 'node_modules/.bin/redocly');
  const run = spawnSync(bin, ['lint', path, '--config', resolve(root, 'redocly.yaml'), '--format=stylish'], {
    encoding: 'utf8',
  });
  const problems =
    run.status === 0
      ? []
      : `${run.stdout}\n${run.stderr}`
          .split('\n')
          .filter((line) => /\b(error|warning)\b/.test(line) && !/Node\.js|support/i.test(line))
          .map((line) => line.trim());
  if (run.status !== 0 && problems.length === 0) problems.push(`redocly lint failed:\n${run.stdout}${run.stderr}`);
  return { name: 'lint (Redocly rules in redocly.yaml)', problems };
}

type Operation = {
  operationId?: string;
  responses?: Record<string, { content?: Record<string, { schema?: object }> }>;
};

/** Rules Redocly has no switch for: camelCase operationIds, a default response, Error bodies on every failure. */
async function houseRules(path: string): Promise<CheckResult> {
  const problems: string[] = [];
  const document = (await SwaggerParser.parse(structuredClone(load(path)) as never)) as unknown as {
    paths?: Record<string, Record<string, Operation>>;
  };
  for (const [route, item] of Object.entries(document.paths ?? {})) {
    for (const [method, operation] of Object.entries(item)) {
      if (typeof operation !== 'object' || !('responses' in operation)) continue;
      const name = `${method.toUpperCase()} ${route}`;
      if (!operation.operationId) problems.push(`${name}: no operationId`);
      else if (!/^[a-z][a-zA-Z0-9]*$/.test(operation.operationId)) {
        problems.push(`${name}: operationId "${operation.operationId}" is not camelCase`);
      }
      const responses = operation.responses ?? {};
      if (!responses.default) problems.push(`${name}: no default response`);
      for (const [status, response] of Object.entries(responses)) {
        if (/^[23]/.test(status)) continue;
        const ref = JSON.stringify(
          (response as { $ref?: string }).$ref ?? response.content?.['application/json']?.schema,
        );
        if (!ref?.includes('#/components/schemas/Error') && !ref?.includes('#/components/responses/')) {
          problems.push(`${name}: response ${status} does not use the Error schema`);
        }
      }
    }
  }
  return { name: 'house rules (camelCase operationIds, default and Error responses)', problems };
}

async function breaking(path: string, basePath: string): Promise<CheckResult> {
  const name = `no breaking changes against ${basePath.replace(`${root}/`, '')}`;
  try {
    const [base, next] = await Promise.all([
      SwaggerParser.dereference(structuredClone(load(basePath)) as never),
      SwaggerParser.dereference(structuredClone(load(path)) as never),
    ]);
    return { name, problems: findBreakingChanges(base, next) };
  } catch (error) {
    return { name, problems: [`could not compare: ${(error as Error).message}`] };
  }
}

export async function checkContract(path: string, basePath: string): Promise<CheckResult[]> {
  return [await validate(path), redocly(path), await houseRules(path), await breaking(path, basePath)];
}

const args = process.argv.slice(2);
const baseIndex = args.indexOf('--base');
const basePath = resolve(
  baseIndex >= 0 && args[baseIndex + 1] ? args[baseIndex + 1]! : `${root}/contract-releases/1.0.0.yaml`,
);
const path = resolve(
  args.find((arg, i) => !arg.startsWith('--') && args[i - 1] !== '--base') ?? `${root}/openapi.yaml`,
);
const results = await checkContract(path, basePath);
for (const { name, problems } of results) {
  console.log(`${problems.length === 0 ? 'PASS' : 'FAIL'} ${name}`);
  for (const problem of problems) console.log(`     - ${problem}`);
}
process.exit(results.every((result) => result.problems.length === 0) ? 0 : 1);
