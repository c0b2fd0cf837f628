// The test kit: what the server's and the SDK's suites share. Import it as `@plant-store/test-kit`.
export { CHROMIUM_PATH, launchChromium } from './browser.js';
export { seededRandom } from './seed.js';
export {
  createTestDatabase,
  POSTGRES_URL,
  TEST_DATABASE,
  type TestDatabase,
  type TestDatabaseKind,
  type TestDatabaseOptions,
} from './test-database.js';
export { createTestApp, startTestServer, type TestApp, type TestServer } from './test-server.js';
export {
  openTestStore,
  type StoreOptions,
  type TestStore,
  type TestStoreKind,
  type TestStoreOptions,
  useTestStore,
} from './test-store.js';
export { waitFor } from './wait.js';
