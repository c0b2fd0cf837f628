// `plant-store export` and `import`, in-process: a SQLite database moved to PostgreSQL and back keeps every list byte
// for byte (pages and their links; the same values on PostgreSQL, which spells JSON its own way), its tokens (a revoked one refused, an expired one expired), its webhook
// subscriptions (a create after the move delivered and signed with the old secret), its pending deliveries and its
// kept Idempotency-Keys (a retried create replays); a server already running on the target, which listed before the
// import, answers the imported data at once.
import { statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { INT64_MAX } from '@plant-store/contract';
import { verifyWebhook } from '@plant-store/sdk';
import { createTestApp, createTestDatabase, startTestServer, type TestApp, waitFor } from '@plant-store/test-kit';
import { startWebhookReceiver, type WebhookReceiver } from '@plant-store/test-kit/webhook-receiver';
import type { FastifyInstance } from 'fastify';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueToken } from '../../src/auth/tokens.js';
import { addSubscription } from '../../src/webhooks/subscriptions.js';
import { cli } from './fixtures/cli-in-process.js';

const JWT = {
  JWT_SECRET: 'a-test-secret-of-at-least-32-characters!',
  JWT_ISSUER: 'https://idp.test/',
  JWT_AUDIENCE: 'ps',
};
const FAST = { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_POLL_MS: '20', RATE_LIMIT_MAX: '0', ...JWT };

/** A JWT for `subject`: the target's server can be asked before any token is imported into it. */
function jwtFor(subject: string) {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ scope: 'read write' })
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuer(JWT.JWT_ISSUER)
    .setAudience(JWT.JWT_AUDIENCE)
    .setSubject(subject)
    .setIssuedAt(now)
    .setExpirationTime(now + 600)
    .sign(new TextEncoder().encode(JWT.JWT_SECRET));
}

/** Every page of the token's plants, seven a page, as the wire carries them: status, Link and body. */
async function pages(app: FastifyInstance, token: string): Promise<string[]> {
  const seen: string[] = [];
  let url: string | undefined = '/plants?limit=7';
  while (url) {
    const answer: { statusCode: number; headers: Record<string, unknown>; body: string } = await app.inject({
      method: 'GET',
      url,
      headers: { authorization: `Bearer ${token}` },
    });
    const link = String(answer.headers.link ?? '');
    seen.push(`${answer.statusCode} ${link}\n${answer.body}`);
    url = /<([^>]+)>;\s*rel="next"/.exec(link)?.[1]?.replace(/^https?:\/\/[^/]+/, '');
  }
  return seen;
}

const OWNERS = ['alice', 'bob', 'carol'];
const KEYED = { id: 777, name: 'Keyed', tag: 'once' };

describe('export and import: SQLite -> PostgreSQL -> SQLite', () => {
  let folder: string;
  const dropped: { drop(): Promise<void> }[] = [];
  const closed: { close(): Promise<void> }[] = [];
  let receiver: WebhookReceiver;
  let source: TestApp;
  let sourceUrl: string;
  const tokens: Record<string, string> = {};
  let revoked: string;
  let expired: string;
  let secret: string;
  let keyedAnswer: { status: number; body: string };
  let before: Record<string, string[]>;
  /** The answers to the revoked and to the expired token. */
  const refusedTokens = (app: FastifyInstance) =>
    Promise.all(
      [revoked, expired].map(
        async (token) =>
          (await app.inject({ url: '/plants', headers: { authorization: `Bearer ${token}` } })).statusCode,
      ),
    );
  /** The keyed create made before the move, retried. */
  const retryKeyed = (app: FastifyInstance) =>
    app.inject({
      method: 'POST',
      url: '/plants',
      headers: {
        authorization: `Bearer ${tokens.carol}`,
        'content-type': 'application/json',
        'idempotency-key': 'move-key-1',
      },
      payload: JSON.stringify(KEYED),
    });

  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'plant-store-archive-'));
    receiver = await startWebhookReceiver(() => ({ status: 200 }));
    closed.push(receiver);
    const database = createTestDatabase('sqlite');
    dropped.push(database);
    sourceUrl = database.url;
    // No listener: the source's deliveries stay pending, to be moved.
    source = await createTestApp({ env: { ...FAST, DATABASE_URL: sourceUrl } });
    closed.push(source);
    for (const owner of OWNERS) tokens[owner] = await source.token(owner);
    const toRevoke = await issueToken(source.store.tokens, { subject: 'alice' });
    revoked = toRevoke.token;
    await source.store.tokens.revoke(toRevoke.record.id, new Date());
    expired = (await issueToken(source.store.tokens, { subject: 'alice', expiresInMs: 1 })).token;
    ({ secret } = await addSubscription(source.store.webhooks, {
      url: receiver.url,
      subject: 'alice',
      allowPrivate: true,
    }));
    const create = (owner: string, body: object, headers: Record<string, string> = {}) =>
      source.app.inject({
        method: 'POST',
        url: '/plants',
        headers: { authorization: `Bearer ${tokens[owner]}`, 'content-type': 'application/json', ...headers },
        payload: JSON.stringify(body, (_key, value) => (typeof value === 'bigint' ? value.toString() : value)),
      });
    for (const [index, owner] of OWNERS.entries()) {
      for (let id = 1; id <= 10 + index * 6; id++) {
        const answer = await create(owner, { id, name: `${owner} ${id} ✓`, ...(id % 3 ? { tag: `t${id}` } : {}) });
        expect(answer.statusCode).toBe(200);
      }
    }
    // Beyond 2^53, written as JSON numbers so no digit is rounded.
    for (const id of ['9007199254740993', INT64_MAX.toString()]) {
      const answer = await source.app.inject({
        method: 'POST',
        url: '/plants',
        headers: { authorization: `Bearer ${tokens.alice}`, 'content-type': 'application/json' },
        payload: `{"id":${id},"name":"big ${id}"}`,
      });
      expect(answer.statusCode).toBe(200);
    }
    const removed = await source.app.inject({
      method: 'DELETE',
      url: '/plants/4',
      headers: { authorization: `Bearer ${tokens.bob}` },
    });
    expect(removed.statusCode).toBe(204);
    const keyed = await create('carol', KEYED, { 'idempotency-key': 'move-key-1' });
    keyedAnswer = { status: keyed.statusCode, body: keyed.body };
    expect(
      (await source.app.inject({ url: '/plants', headers: { authorization: `Bearer ${revoked}` } })).statusCode,
    ).toBe(401);
    before = Object.fromEntries(
      await Promise.all(OWNERS.map(async (owner) => [owner, await pages(source.app, tokens[owner]!)] as const)),
    );
  });

  afterAll(async () => {
    for (const item of closed.reverse()) await item.close().catch(() => {});
    for (const database of dropped) await database.drop();
    await rm(folder, { recursive: true, force: true });
  });

  it('moves everything to a serving PostgreSQL and back to SQLite', async () => {
    const first = join(folder, 'from-sqlite.jsonl.gz');
    const exported = await cli(['export', '--output', first, '--json'], { DATABASE_URL: sourceUrl });
    expect(exported.stderr).toBe('');
    expect(exported.code).toBe(0);
    const summary = JSON.parse(exported.stdout);
    expect(summary.counts).toMatchObject({ plant: 10 + 16 + 22 + 2 - 1 + 1, token: 5, subscription: 1 });
    expect(summary.counts.delivery).toBe(10 + 2);
    expect(summary.counts['idempotency-key']).toBe(1);
    expect(statSync(first).mode & 0o777).toBe(0o600);

    // A server already runs on the empty PostgreSQL target, and has listed (an empty page) before the import.
    const postgres = createTestDatabase('postgres');
    dropped.push(postgres);
    const target = await startTestServer({ env: { ...FAST, DATABASE_URL: postgres.url } });
    closed.push(target);
    const aliceJwt = await jwtFor('alice');
    const empty = await target.app.inject({ url: '/plants', headers: { authorization: `Bearer ${aliceJwt}` } });
    expect(empty.body).toBe('[]');
    const imported = await cli(['import', '--input', first], { DATABASE_URL: postgres.url });
    expect(imported.stderr).toMatch(/^Imported 72 records/);
    expect(imported.code).toBe(0);

    const afterMove = await target.app.inject({
      url: '/plants?limit=500',
      headers: { authorization: `Bearer ${aliceJwt}` },
    });
    expect(afterMove.body).not.toBe('[]');
    // PostgreSQL writes each page as SQLite does, byte for byte: the same plants, the same links.
    for (const owner of OWNERS) {
      expect(await pages(target.app, tokens[owner]!)).toEqual(before[owner]!);
    }
    expect(await refusedTokens(target.app)).toEqual([401, 401]);

    // The pending deliveries go out from the target, and so does a create made after the move, all signed with the
    // secret the subscription had before it.
    const created = await target.app.inject({
      method: 'POST',
      url: '/plants',
      headers: { authorization: `Bearer ${tokens.alice}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ id: 4242, name: 'After the move' }),
    });
    expect(created.statusCode).toBe(200);
    await waitFor('13 deliveries', () => receiver.received.length >= 13);
    const delivered = await Promise.all(
      receiver.received.map((request) =>
        verifyWebhook(request.body, request.headers as Record<string, string>, secret),
      ),
    );
    expect(delivered.map((plant) => String(plant.id))).toEqual(
      expect.arrayContaining(['1', '10', '9007199254740993', INT64_MAX.toString(), '4242']),
    );
    const keyedAgain = await retryKeyed(target.app);
    expect({ status: keyedAgain.statusCode, body: keyedAgain.body }).toEqual(keyedAnswer);
    expect(keyedAgain.headers['idempotent-replayed']).toBe('true');
    const deleted = await target.app.inject({
      method: 'DELETE',
      url: '/plants/4242',
      headers: { authorization: `Bearer ${tokens.alice}` },
    });
    expect(deleted.statusCode).toBe(204);

    // And back: PostgreSQL to a new SQLite file (a restore onto a laptop).
    const second = join(folder, 'from-postgres.jsonl');
    const again = await cli(['export', '--output', second], { DATABASE_URL: postgres.url });
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/^Exported \d+ records .* from the PostgreSQL database/);
    // Into SQLite under an app that has listed (and cached) an empty page: its change feed hears the import.
    const laptop = createTestDatabase('sqlite');
    dropped.push(laptop);
    const restored = await createTestApp({ env: { ...FAST, DATABASE_URL: laptop.url } });
    closed.push(restored);
    const emptyBefore = await restored.app.inject({
      url: '/plants?limit=7',
      headers: { authorization: `Bearer ${aliceJwt}` },
    });
    expect(emptyBefore.body).toBe('[]');
    expect(await cli(['import', '--input', second], { DATABASE_URL: laptop.url })).toMatchObject({ code: 0 });
    for (const owner of OWNERS) expect(await pages(restored.app, tokens[owner]!)).toEqual(before[owner]);
    expect(await refusedTokens(restored.app)).toEqual([401, 401]);
    const replayed = await retryKeyed(restored.app);
    expect({ status: replayed.statusCode, body: replayed.body }).toEqual(keyedAnswer);
    const [subscription] = await restored.store.webhooks.listSubscriptions();
    expect(subscription).toMatchObject({ url: receiver.url, subject: 'alice', enabled: true });
  });
});
