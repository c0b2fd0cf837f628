// The memory a test leaves behind once garbage is collected: a deterministic measure of what is still reachable,
// where the process's RSS moves with when collection happens to run (vitest's workers expose no gc; this turns it on).
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/**
 * The JavaScript heap in use plus the memory outside it that JavaScript objects hold (Buffers' bytes), once everything
 * unreachable is collected (twice: weak references and finalizers let go late).
 */
export function retainedBytes(): number {
  gc();
  gc();
  const { heapUsed, external } = process.memoryUsage();
  return heapUsed + external;
}
