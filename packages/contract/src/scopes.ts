// The scopes a token may carry, as the contract's `x-required-scope` names them. No Node or DOM APIs.

export const SCOPES = ['read', 'write'] as const;

/** What a token may do: `read` allows getPlants, `write` createPlant and deletePlant. */
export type Scope = (typeof SCOPES)[number];

/** True when `name` is one of the contract's scopes. */
export function isScope(name: unknown): name is Scope {
  return (SCOPES as readonly unknown[]).includes(name);
}
