// vitest globalSetup of the system and package tiers: builds the contract, the core, the server and the SDK, unless
// each is built from its current sources and dependencies (as it is after `pnpm install` or `pnpm build`, which
// `pnpm test` runs first). Tests that start the real `plant-store` process run the compiled server, and the SDK's
// tarball and browser tests pack the same fresh dist/. The unit tier never needs it. Several projects share this setup; it builds at most
// once per run.
import { BUILDS, buildStale } from '../stale-builds.ts';

const state = globalThis as { plantStoreBuilt?: boolean };

export default function setup(): void {
  if (state.plantStoreBuilt) return;
  state.plantStoreBuilt = true;
  buildStale(BUILDS);
}
