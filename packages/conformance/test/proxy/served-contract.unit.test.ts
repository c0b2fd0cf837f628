// The validating proxy's router tells the contract the service serves (GET and HEAD of /openapi.json, which the
// checker reads for the served version) from the contract's operations and from undeclared paths: the proxy passes it
// through unchecked. Through a running proxy: ../system/proxy-served-contract.test.ts.
import { SERVED_CONTRACT_PATH } from '@plant-store/contract';
import { describe, expect, it } from 'vitest';
import { loadConformanceContract } from '../../src/contract.js';
import { routerOf } from '../../src/proxy/routes.js';

describe('routerOf and the served contract', () => {
  const route = routerOf(loadConformanceContract());

  it('routes GET and HEAD of /openapi.json to the served contract', () => {
    expect(SERVED_CONTRACT_PATH).toBe('/openapi.json');
    expect(route('GET', '/openapi.json')).toEqual({ kind: 'served-contract' });
    expect(route('HEAD', '/openapi.json')).toEqual({ kind: 'served-contract' });
  });

  it('leaves other methods there, and paths beside it, undeclared', () => {
    expect(route('POST', '/openapi.json')).toEqual({ kind: 'undeclared-path' });
    expect(route('GET', '/openapi.json/x')).toEqual({ kind: 'undeclared-path' });
    expect(route('GET', '/openapi.yaml')).toEqual({ kind: 'undeclared-path' });
  });
});
