// The contract's path templates (`/plants/{id}`) as patterns a request path is matched against: the server's 404/405
// answer and the SDK's testing kit route by the same rule. No Node or DOM APIs.

/** `/plants/{id}` -> `^/plants/([^/]+)$` (one segment per parameter), with the parameters' names in order. */
export function pathPattern(template: string): { pattern: RegExp; names: string[] } {
  const names = [...template.matchAll(/\{([^}]+)\}/g)].map((match) => match[1] as string);
  const literal = template.split(/\{[^}]+\}/).map((part) => part.replace(/[.*+?^$()|[\]\\]/g, '\\$&'));
  return { pattern: new RegExp(`^${literal.join('([^/]+)')}$`), names };
}
