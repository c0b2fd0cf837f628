// The test file naming rule vitest.config.ts sorts and checks by: `<subject>[.<engine marker>].<tier>.test.ts` (or
// `.test.tsx`, or `.test-d.ts` for type tests), the tier right before `.test`, the marker right before the tier.

export const TIERS = ['unit', 'integration', 'system', 'package'] as const;

/**
 * The engine markers each tier has per-engine projects for: an every-engine integration file runs on memory, SQLite
 * and PostgreSQL; an every-database system file on SQLite and PostgreSQL.
 */
export const ENGINE_MARKERS: Readonly<Record<string, readonly string[]>> = {
  integration: ['every-engine'],
  system: ['every-database'],
};

const MARKERS = ['every-engine', 'every-database'];
const isTier = (part: string | undefined) => (TIERS as readonly (string | undefined)[]).includes(part);

/** What is wrong with a test file's name (its tier, its engine marker), or undefined when nothing is. */
export function nameProblem(name: string): string | undefined {
  const parts = name.split('.');
  const at = parts.findIndex((part) => part === 'test' || part === 'test-d');
  const tiers = parts.filter(isTier).length;
  const tier = parts[at - 1];
  if (tiers !== 1 || tier === undefined || !isTier(tier)) {
    return `carries ${tiers} tiers (it needs one of ${TIERS.join(', ')}, right before .test)`;
  }
  const markers = parts.filter((part) => MARKERS.includes(part));
  if (markers.length > 1) return `carries ${markers.length} engine markers`;
  const marker = markers[0];
  if (marker !== undefined && parts[at - 2] !== marker) return `carries ${marker} elsewhere than right before its tier`;
  if (marker !== undefined && !(ENGINE_MARKERS[tier] ?? []).includes(marker)) {
    return `carries ${marker}, which the ${tier} tier has no projects for`;
  }
  return undefined;
}
