// The actions of `plant-store token` and `plant-store webhook`, run in-process on the memory engine: a missing action
// is refused naming each one, in the order the usage lists them, and an action on a webhook id no subscription has
// exits 1 saying so (each `withStore` opens a new, empty memory store, so no id is known). A replay of a delivery
// still pending, on a SQLite file, queues nothing and says so.
import { useTestStore } from '@plant-store/test-kit';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';

const sqlite = useTestStore('sqlite');

async function run(argv: string[], env: Record<string, string> = { DATABASE_URL: 'memory:' }) {
  const out: string[] = [];
  const err: string[] = [];
  const io = {
    stdout: (line: string) => out.push(line),
    stderr: (line: string) => err.push(line),
    env,
  };
  const code = await main(argv, io);
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}

describe('plant-store <command> <action>', () => {
  it.each([
    ['token', 'token needs a command: create, list or revoke'],
    ['webhook', 'webhook needs a command: add, list, remove, enable, rotate-secret, deliveries or replay'],
  ])('%s without an action names every action', async (command, message) => {
    const { code, stderr } = await run([command]);
    expect(code).toBe(2);
    expect(stderr.split('\n')[0]).toContain(message);
  });

  it.each([['remove'], ['enable'], ['rotate-secret']])(
    'webhook %s of an unknown id exits 1 saying so',
    async (action) => {
      expect(await run(['webhook', action, 'wh_none'])).toEqual({
        code: 1,
        stdout: '',
        stderr: 'plant-store: no webhook has the id "wh_none" (see `plant-store webhook list`)',
      });
    },
  );

  it('webhook replay of a delivery still pending exits 1, queueing no second copy', async () => {
    const { store, url } = sqlite;
    await store.webhooks.addSubscription({
      id: 'wh_pending',
      url: 'https://example.com/h',
      subject: null,
      secret: 'whsec_x',
    });
    await store.plants.create('ann', { id: 1n, name: 'Fern' });
    const [delivery] = await store.webhooks.listDeliveries({ failedOnly: false, limit: 10 });
    expect(await run(['webhook', 'replay', String(delivery!.id)], { DATABASE_URL: url })).toEqual({
      code: 1,
      stdout: '',
      stderr:
        `plant-store: delivery ${delivery!.id} is still pending and goes out at its next attempt; nothing was queued ` +
        '(replay a delivery once it is delivered or failed, see `plant-store webhook deliveries`)',
    });
    expect(await store.webhooks.listDeliveries({ failedOnly: false, limit: 10 })).toHaveLength(1);
  });
});
