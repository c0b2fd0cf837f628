// @plant-store/sdk/testing: an in-memory Plant Store behind a fetch, for tests of code that uses the SDK. A subpath
// of its own so production bundles never include it. Everything public of the subpath is exported here.
export {
  createFakePlantStore,
  type FakeFailure,
  type FakePlantStore,
  type FakePlantStoreOptions,
  type FakeScope,
  type SeedPlant,
} from './fake-plant-store.js';
