// The test kit: what the server's and the SDK's suites share. Import it as `@plant-store/test-kit`.
export { CHROMIUM_PATH, launchChromium } from './browser.js';
export { seededRandom } from './seed.js';
export { createTestDatabase, POSTGRES_URL, TEST_DATABASE, type TestDatabase } from './test-database.js';
export { createTestApp, startTestServer, type TestApp, type TestServer } from './test-server.js';
export { waitFor } from './wait.js';
