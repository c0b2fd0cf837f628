// The naming rule that sorts test files into tiers and engine projects (vitest.config.ts stops a run on a file that
// breaks it).
import { describe, expect, it } from 'vitest';
import { nameProblem } from './test-names.ts';

describe('nameProblem', () => {
  it.each([
    'store.unit.test.ts',
    'app.unit.test.tsx',
    'contract-types.unit.test-d.ts',
    'crash-durability.system.test.ts',
    'store.every-engine.integration.test.ts',
    'delivery.every-database.system.test.ts',
    'tarball.package.test.ts',
  ])('accepts %s', (name) => {
    expect(nameProblem(name)).toBeUndefined();
  });

  it.each([
    ['store.test.ts', 'carries 0 tiers'],
    ['store.unit.integration.test.ts', 'carries 2 tiers'],
    ['unit.store.test.ts', 'right before .test'],
    ['store.every-engine.system.test.ts', 'which the system tier has no projects for'],
    ['store.every-database.integration.test.ts', 'which the integration tier has no projects for'],
    ['store.every-engine.unit.test.ts', 'which the unit tier has no projects for'],
    ['store.every-engine.every-database.system.test.ts', 'carries 2 engine markers'],
    ['every-engine.store.integration.test.ts', 'elsewhere than right before its tier'],
  ])('refuses %s', (name, problem) => {
    expect(nameProblem(name)).toContain(problem);
  });
});
