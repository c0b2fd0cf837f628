// `plant-store webhook ...` as an operator runs it: real child processes on a real SQLite file, next to a running
// service that picks up what the CLI changes without a restart.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { waitFor } from '@plant-store/test-kit';
import { BIN, type ServerProcess, startServerProcess } from '@plant-store/test-kit/server-process';
import { startWebhookReceiver, type WebhookReceiver } from '@plant-store/test-kit/webhook-receiver';
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'plant-store-webhook-cli-'));
const DATABASE_URL = `sqlite:${join(dir, 'cli.db')}`;
const cleanups: (() => unknown)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  rmSync(dir, { recursive: true, force: true });
});

async function cli(env: Record<string, string>, ...args: string[]) {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [BIN, ...args], {
      env: { ...process.env, DATABASE_URL, ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failure = error as { code: number; stdout: string; stderr: string };
    return { code: failure.code, stdout: failure.stdout, stderr: failure.stderr };
  }
}
const strict = (...args: string[]) => cli({}, ...args);
const local = (...args: string[]) => cli({ WEBHOOK_ALLOW_PRIVATE: 'true' }, ...args);
const lastLine = (text: string) => text.trim().split('\n').at(-1)!;

// Each test runs up to ten CLI processes one after another, each about a second of CPU, which a loaded two-core
// machine stretches to several: the default 30 s was a test of the load, not of the CLI.
describe('plant-store webhook', { timeout: 120_000 }, () => {
  it('refuses URLs that cannot receive webhooks, naming the rule', async () => {
    expect(await strict('webhook', 'add')).toMatchObject({ code: 2, stderr: expect.stringContaining('--url URL') });
    expect(await strict('webhook', 'add', '--url', 'not a url')).toMatchObject({ code: 2 });
    expect(await strict('webhook', 'add', '--url', 'http://example.com/hook')).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('only https'),
    });
    expect(await strict('webhook', 'add', '--url', 'https://10.0.0.7/hook')).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('not a public address'),
    });
    expect(await strict('webhook', 'add', '--url', 'https://user:pw@example.com/')).toMatchObject({ code: 2 });
    expect(await strict('webhook', 'add', '--url', 'https://example.com/', '--subject', ' bob')).toMatchObject({
      code: 2,
    });
    expect(await strict('webhook', 'list')).toMatchObject({ code: 0, stdout: 'no webhooks\n' });
  });

  it('adds (secret alone on the last line), lists without secrets, rotates and removes', async () => {
    const added = await strict('webhook', 'add', '--url', 'https://example.com/hooks/plants', '--subject', 'bob');
    expect(added.code).toBe(0);
    const secret = lastLine(added.stdout);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    const id = /Created webhook (wh_\S+)/.exec(added.stdout)?.[1];
    expect(id).toBeDefined();

    const listed = await strict('webhook', 'list');
    expect(listed.stdout).toMatch(new RegExp(`^${id} +https://example.com/hooks/plants +bob +enabled `, 'm'));
    const [record, ...others] = JSON.parse((await strict('webhook', 'list', '--json')).stdout);
    expect(others).toEqual([]);
    expect(record).toEqual({
      id,
      url: 'https://example.com/hooks/plants',
      subject: 'bob',
      enabled: true,
      disabledReason: null,
      circuitOpenUntil: null,
      createdAt: expect.stringMatching(/^20\d\d-\d\d-\d\dT[\d:.]+Z$/),
      previousSecretUntil: null,
    });
    expect(listed.stdout).not.toContain(secret.slice(6));

    const rotated = await strict('webhook', 'rotate-secret', id!, '--overlap', '1h');
    expect(rotated.code).toBe(0);
    expect(lastLine(rotated.stdout)).toMatch(/^whsec_/);
    expect(lastLine(rotated.stdout)).not.toBe(secret);
    expect((await strict('webhook', 'list')).stdout).toMatch(new RegExp(`^${id} .* \\d{4}-\\d\\d-\\d\\dT\\S+Z$`, 'm'));

    expect(await strict('webhook', 'remove', id!)).toMatchObject({ code: 0 });
    expect(await strict('webhook', 'remove', id!)).toMatchObject({ code: 1, stderr: expect.stringContaining(id!) });
    expect(await strict('webhook', 'rotate-secret', id!)).toMatchObject({ code: 1 });
  });

  it('a webhook added while the service runs gets the next plant within a second; failures are listed and replayed', async () => {
    const receiver: WebhookReceiver = await startWebhookReceiver(() => ({ status: 404 }));
    cleanups.push(() => receiver.close());
    const server: ServerProcess = await startServerProcess({ DATABASE_URL, WEBHOOK_ALLOW_PRIVATE: 'true' });
    cleanups.push(async () => {
      server.child.kill('SIGTERM');
      await server.exited;
    });
    const token = lastLine((await strict('token', 'create', '--subject', 'alice')).stdout);
    expect(await local('webhook', 'deliveries')).toMatchObject({ code: 0, stdout: 'no deliveries\n' });

    const added = await local('webhook', 'add', '--url', receiver.url);
    expect(added.code).toBe(0);
    const secret = lastLine(added.stdout);
    const created = Date.now();
    const response = await fetch(`${server.url}/plants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: '{"id": 9007199254740993, "name": "Fern"}',
    });
    expect(response.status).toBe(200);
    await waitFor('the delivery', () => receiver.received.length === 1, { timeoutMs: 20_000 });
    expect(receiver.received[0]!.at - created).toBeLessThan(1_000);
    expect(receiver.received[0]!.body).toBe('{"id":9007199254740993,"name":"Fern"}');

    // A 404 is not retried: the delivery fails at once and `--failed` shows it.
    await waitFor('the failure', async () =>
      (await local('webhook', 'deliveries', '--failed')).stdout.includes('HTTP 404'),
    );
    // Aligned columns, as docs/webhooks.md shows: each cell starts where its title does.
    const failed = (await local('webhook', 'deliveries', '--failed')).stdout.trimEnd().split('\n');
    expect(failed[0]).toMatch(/^ID +WEBHOOK +EVENT +STATUS +ATTEMPTS +LAST ANSWER +CREATED +NEXT \/ FINISHED$/);
    const cells = (line: string) =>
      ['WEBHOOK', 'EVENT', 'STATUS', 'ATTEMPTS', 'LAST ANSWER', 'CREATED', 'NEXT / FINISHED'].map(
        (title) => line.slice(failed[0]!.indexOf(title)).split('  ')[0],
      );
    const eventId = String(receiver.received[0]!.headers['webhook-id']);
    expect(cells(failed[1]!).slice(1, 5)).toEqual([eventId, 'failed', '1', 'HTTP 404']);
    // --json, for scripts.
    const [delivery] = JSON.parse((await local('webhook', 'deliveries', '--failed', '--json')).stdout);
    expect(delivery).toMatchObject({ event: eventId, status: 'failed', attempts: 1, lastStatus: 404 });
    expect(delivery.finishedAt).toMatch(/^20\d\d-\d\d-\d\dT[\d:.]+Z$/);
    const deliveryId = String(delivery.id);
    expect(failed[1]!.startsWith(`${deliveryId} `)).toBe(true);

    receiver.answer(() => ({ status: 204 }));
    const replayed = await local('webhook', 'replay', deliveryId!);
    expect(replayed).toMatchObject({ code: 0, stdout: expect.stringContaining('same webhook-id') });
    await waitFor('the replay', () => receiver.received.length === 2, { timeoutMs: 20_000 });
    const again = receiver.received[1]!;
    expect(again.headers['webhook-id']).toBe(eventId);
    const headers = Object.fromEntries(
      ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => [name, String(again.headers[name])]),
    );
    expect(() => new Webhook(secret).verify(again.body, headers)).not.toThrow();
    await waitFor('delivered', async () => / {2}delivered {2}/.test((await local('webhook', 'deliveries')).stdout));

    expect(await local('webhook', 'replay', '424242')).toMatchObject({ code: 1 });
    expect(await local('webhook', 'replay', 'abc')).toMatchObject({ code: 2 });
    expect(await local('webhook', 'deliveries', '--limit', '0')).toMatchObject({ code: 2 });
  });

  it('enables again a webhook that a 410 disabled: listed as disabled with the reason, then sent the next plant', async () => {
    const receiver: WebhookReceiver = await startWebhookReceiver((_request, index) => ({
      status: index === 0 ? 410 : 204,
    }));
    cleanups.push(() => receiver.close());
    const server: ServerProcess = await startServerProcess({ DATABASE_URL, WEBHOOK_ALLOW_PRIVATE: 'true' });
    cleanups.push(async () => {
      server.child.kill('SIGTERM');
      await server.exited;
    });
    const token = lastLine((await strict('token', 'create', '--subject', 'carol')).stdout);
    const added = await local('webhook', 'add', '--url', receiver.url, '--subject', 'carol');
    const id = /Created webhook (\S+) /.exec(added.stdout)?.[1];
    const create = (plantId: number) =>
      fetch(`${server.url}/plants`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ id: plantId, name: 'Fern' }),
      });
    expect((await create(1)).status).toBe(200);
    const row = async () =>
      (await local('webhook', 'list')).stdout.split('\n').find((line) => line.startsWith(`${id} `));
    await waitFor('disabled by the 410', async () =>
      Boolean((await row())?.includes('disabled (the receiver answered 410 Gone)')),
    );

    expect(await local('webhook', 'enable', 'wh_unknown')).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('wh_unknown'),
    });
    expect(await local('webhook', 'enable')).toMatchObject({ code: 2 });
    expect(await local('webhook', 'enable', id!)).toMatchObject({
      code: 0,
      stdout: expect.stringContaining(`Enabled webhook ${id}`),
    });
    expect(await row()).toMatch(/ carol +enabled /);
    expect((await create(2)).status).toBe(200);
    await waitFor('the next plant', () => receiver.received.length === 2, { timeoutMs: 20_000 });
    expect(receiver.received[1]!.body).toBe('{"id":2,"name":"Fern"}');
  });
});
