// The actions of `plant-store token` and `plant-store webhook`, run in-process on the memory engine: a missing action
// is refused naming each one, in the order the usage lists them, and an action on a webhook id no subscription has
// exits 1 saying so (each `withStore` opens a new, empty memory store, so no id is known).
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';

async function run(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const io = {
    stdout: (line: string) => out.push(line),
    stderr: (line: string) => err.push(line),
    env: { DATABASE_URL: 'memory:' },
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
});
