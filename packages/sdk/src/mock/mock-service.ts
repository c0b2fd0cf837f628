// The mock server's service, on web-platform APIs only: the testing kit's fake (the service's own handlers over its
// memory engine, with its Error shapes, paging and ETags) behind one bearer token, seeded from a file's plants, with
// CORS for a dev server's origin and HEAD answered as GET without a body. bin/plant-store-mock.ts puts it on a socket.
import {
  CONTRACT_METHODS,
  CORS_ALLOWED_HEADERS,
  CORS_EXPOSED_HEADERS,
  CORS_MAX_AGE_SECONDS,
  parseJsonExact,
} from '@plant-store/contract';
import { createFakePlantStore, type FakePlantStore, type SeedPlant } from '../testing/fake-plant-store.js';

/** The subject the mock's token belongs to: every plant created or seeded is this principal's. */
export const MOCK_SUBJECT = 'mock';

export interface MockServiceOptions {
  /** The bearer token the mock accepts (read and write scopes); a random one when absent. */
  token?: string;
  /** A seed file's text: a JSON array of plants (`[{ "id": 1, "name": "Fern", "tag": "indoor" }]`), ids exact. */
  seed?: string;
  /**
   * Origins granted CORS besides every loopback one (`http://localhost:5173`, `http://127.0.0.1:3000`, `[::1]`, any
   * port, http or https); `*` grants any origin.
   */
  corsOrigins?: readonly string[];
}

export interface MockService {
  /** Answers one request as the service would, CORS included. */
  fetch(request: Request): Promise<Response>;
  /** The token it accepts. */
  token: string;
  /** The fake underneath, for tests. */
  fake: FakePlantStore;
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Whether a page on `origin` may call the mock: a loopback origin (a dev server), or one the options name. */
export function corsAllows(origin: string, granted: readonly string[]): boolean {
  if (granted.includes('*') || granted.includes(origin)) return true;
  try {
    const { protocol, hostname } = new URL(origin);
    return (protocol === 'http:' || protocol === 'https:') && LOOPBACK_HOSTS.has(hostname);
  } catch {
    return false;
  }
}

/** The plants of a seed file, or a TypeError naming what is wrong with it (each plant is checked as a create's body). */
export function seedPlants(text: string): SeedPlant[] {
  let plants: unknown;
  try {
    plants = parseJsonExact(text);
  } catch (error) {
    throw new TypeError(`the seed file is not valid JSON: ${(error as Error).message}`);
  }
  if (!Array.isArray(plants)) {
    throw new TypeError(
      'the seed file must hold a JSON array of plants, e.g. [{"id": 1, "name": "Fern", "tag": "indoor"}]',
    );
  }
  return plants as SeedPlant[];
}

export function createMockService(options: MockServiceOptions = {}): MockService {
  const fake = createFakePlantStore();
  const token = fake.createToken({
    subject: MOCK_SUBJECT,
    ...(options.token === undefined ? {} : { token: options.token }),
  });
  if (options.seed !== undefined) {
    try {
      fake.seed(MOCK_SUBJECT, seedPlants(options.seed));
    } catch (error) {
      throw new TypeError(`${(error as Error).message.replace(/^seed: /, 'the seed file: ')}`);
    }
  }
  const granted = options.corsOrigins ?? [];

  async function fetch(request: Request): Promise<Response> {
    const origin = request.headers.get('origin');
    const cors: Record<string, string> =
      origin !== null && corsAllows(origin, granted)
        ? { 'access-control-allow-origin': granted.includes('*') ? '*' : origin, vary: 'Origin' }
        : {};
    if (
      request.method === 'OPTIONS' &&
      cors['access-control-allow-origin'] &&
      request.headers.has('access-control-request-method')
    ) {
      return new Response(null, {
        status: 204,
        headers: {
          ...cors,
          'access-control-allow-methods': [...CONTRACT_METHODS].join(', '),
          'access-control-allow-headers': CORS_ALLOWED_HEADERS.join(', '),
          'access-control-max-age': String(CORS_MAX_AGE_SECONDS),
        },
      });
    }
    const head = request.method === 'HEAD';
    const answer = await fake.fetch(head ? new Request(request.url, { headers: request.headers }) : request);
    const headers = new Headers(answer.headers);
    for (const [name, value] of Object.entries(cors)) headers.set(name, value);
    if (cors['access-control-allow-origin'])
      headers.set('access-control-expose-headers', CORS_EXPOSED_HEADERS.join(', '));
    return new Response(head ? null : answer.body, { status: answer.status, headers });
  }

  return { fetch, token, fake };
}
