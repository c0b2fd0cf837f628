// BENCH_LAYERS_OFF's names (tools/bench/src/layer-switches.ts): known layers in the order given, blanks skipped, an
// unknown name refused with the known ones listed, so a typo never runs a variant that switches nothing off.
import { describe, expect, it } from 'vitest';
import { parseLayers, SWITCHED_LAYERS } from '../src/layer-switches.js';

describe('parseLayers', () => {
  it('takes the comma-separated known layers, and none from nothing', () => {
    expect(parseLayers(undefined)).toEqual([]);
    expect(parseLayers('')).toEqual([]);
    expect(parseLayers(' auth, validation ,')).toEqual(['auth', 'validation']);
    expect(parseLayers(SWITCHED_LAYERS.join(','))).toEqual([...SWITCHED_LAYERS]);
  });

  it('refuses an unknown layer, naming it and the known ones', () => {
    expect(() => parseLayers('auth,auth-cache')).toThrow(
      `BENCH_LAYERS_OFF: unknown layers auth-cache (known: ${SWITCHED_LAYERS.join(', ')})`,
    );
  });
});
