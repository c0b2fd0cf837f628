// The phases after the stateful model, in the order a run takes them: each checks one protocol of the contract or one
// kind of request (its file says which checks it records). They run before the generated phase, whose ids come from
// the whole reserved block, and write only ids of their own slots (phase-support.ts).
import { runIgnoredAuthPhase } from './auth-phase.js';
import { runConditionalPhase } from './conditional-phase.js';
import { runHeaderFuzzPhase } from './header-fuzz-phase.js';
import { runIdempotencyPhase } from './idempotency-phase.js';
import { runIsolationPhase } from './isolation-phase.js';
import { runLifecyclePhase } from './lifecycle-phase.js';
import { runLinkWalkPhase } from './link-walk-phase.js';
import { runUnsupportedMethodPhase } from './method-phase.js';
import type { CheckName } from './report.js';
import { runRequiredHeaderPhase } from './required-header-phase.js';
import type { RunContext } from './run-context.js';

export interface ProtocolPhase {
  /** The checks it is there for: left out by --checks or --exclude-checks, it sends nothing. */
  checks: CheckName[];
  run(run: RunContext): Promise<void>;
}

export const PROTOCOL_PHASES: ProtocolPhase[] = [
  { checks: ['ignored-auth'], run: runIgnoredAuthPhase },
  { checks: ['unsupported-method'], run: runUnsupportedMethodPhase },
  { checks: ['missing-required-header'], run: runRequiredHeaderPhase },
  { checks: ['ensure-resource-availability', 'use-after-free'], run: runLifecyclePhase },
  { checks: ['cache-isolation'], run: runIsolationPhase },
  { checks: ['etag-per-principal'], run: runConditionalPhase },
  { checks: ['idempotency'], run: runIdempotencyPhase },
  { checks: ['link-walk-under-writes'], run: runLinkWalkPhase },
  { checks: ['header-fuzzing'], run: runHeaderFuzzPhase },
];
