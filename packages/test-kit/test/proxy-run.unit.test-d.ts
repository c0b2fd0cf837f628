// Type tests, run by `pnpm typecheck` (tsc -b over the test kit's tsconfig.test.json): the io the proxy run
// hands conformanceCommand declares the proxy's own fields, so a wrong one fails to compile rather than being ignored.
import { type ConformanceCommandIo, conformanceCommand } from '@plant-store/conformance';
import { describe, expectTypeOf, it } from 'vitest';

const lines = { stdout: (_line: string) => {}, stderr: (_line: string) => {}, env: {} };

describe('conformanceCommand io', () => {
  it('takes the proxy its stop signal and its listening callback, typed', () => {
    expectTypeOf<ConformanceCommandIo['signal']>().toEqualTypeOf<AbortSignal | undefined>();
    expectTypeOf<ConformanceCommandIo['listening']>().toEqualTypeOf<((url: string) => void) | undefined>();
    expectTypeOf(conformanceCommand).parameter(1).toEqualTypeOf<ConformanceCommandIo>();
    const calls = () => {
      void conformanceCommand(['proxy'], { ...lines, signal: new AbortController().signal, listening: () => {} });
      // @ts-expect-error the signal is an AbortSignal, not its controller
      void conformanceCommand(['proxy'], { ...lines, signal: new AbortController() });
      // @ts-expect-error listening is told the URL, a string
      void conformanceCommand(['proxy'], { ...lines, listening: (_port: number) => {} });
    };
    void calls;
  });
});
