// A token in the query string never reaches the log, however its name is percent-encoded.
import { createTestDatabase, type TestDatabase, waitFor } from '@plant-store/test-kit';
import { type ServerProcess, startServerProcess } from '@plant-store/test-kit/server-process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redactQuery } from '../../src/http/url-redaction.js';

let database: TestDatabase;
let server: ServerProcess | undefined;

beforeAll(async () => {
  database = createTestDatabase('sqlite');
  // The access log is the line that repeats a request's URL.
  server = await startServerProcess({ DATABASE_URL: database.url, LOG_LEVEL: 'info', ACCESS_LOG: 'true' });
}, 60_000);
afterAll(async () => {
  server?.child.kill('SIGKILL');
  await server?.exited;
  await database?.drop();
});

describe('log redaction of query-string tokens', () => {
  it.each([
    'access_token=SECRET1',
    'access%5Ftoken=SECRET2',
    '%61ccess_token=SECRET3',
    'ACCESS%5FTOKEN=SECRET4',
    'limit=1&%61ccess%5ftoken=SECRET5',
    'access_token%zz=SECRET6',
  ])('keeps %s out of the log', async (query) => {
    const secret = /SECRET\d/.exec(query)![0];
    const response = await fetch(`${server!.url}/plants?${query}`, {
      headers: { 'x-request-id': `redaction-${secret}` },
    });
    expect(response.status).toBeGreaterThanOrEqual(400);
    const line = () =>
      server!
        .output()
        .split('\n')
        .find((text) => text.includes(`"reqId":"redaction-${secret}"`) && text.includes('"request completed"'));
    await waitFor('the access line', () => line() !== undefined);
    expect(line()).toContain('[redacted]');
    expect(server!.output().replaceAll(`redaction-${secret}`, '')).not.toContain(secret);
  });

  it('leaves other parameters readable', () => {
    expect(redactQuery('/plants?limit=5&cursor=abc')).toBe('/plants?limit=5&cursor=abc');
    expect(redactQuery('/plants?limit=5&access%5Ftoken=x')).toBe('/plants?limit=5&access%5Ftoken=[redacted]');
  });
});
