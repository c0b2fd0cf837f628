// The contract document itself: where openapi.yaml lives, and reading it. Node only (node:fs); the SDK never
// imports this module.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

/** openapi.yaml at the repository root (the same two folders up from src/ and from dist/). */
const REPOSITORY_COPY = new URL('../../../openapi.yaml', import.meta.url);

/**
 * The document read at run time: the repository's, or, where there is no repository (a deployed package, the
 * container image), the copy the build puts in dist/ beside this module.
 */
export const OPENAPI_URL = existsSync(REPOSITORY_COPY) ? REPOSITORY_COPY : new URL('./openapi.yaml', import.meta.url);

/** The file system path of openapi.yaml. */
export const OPENAPI_PATH = fileURLToPath(OPENAPI_URL);

export interface OpenApiDocument {
  /** The document as written. */
  readonly yaml: string;
  /** The document parsed; $refs are left as they are. */
  readonly document: Record<string, unknown>;
}

/** Reads and parses the document at `path` (openapi.yaml unless given). */
export function readOpenApiDocument(path: string | URL = OPENAPI_URL): OpenApiDocument {
  const yaml = readFileSync(path, 'utf8');
  return { yaml, document: parse(yaml) as Record<string, unknown> };
}
