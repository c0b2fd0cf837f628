// Which ancestors of `serve` count as launchers (whose end stops the service): the node_modules/.bin/node shim, a
// `sh -c` script and a package manager; a login shell, a supervisor or PID 1 never do.
import { expect, it } from 'vitest';
import { isLauncher } from '../../src/cli/launcher-watch.js';

it('counts the node shim, sh -c scripts and package managers as launchers', () => {
  expect(
    isLauncher(['/bin/sh', '/srv/app/node_modules/.bin/node', 'packages/server/bin/plant-store.js', 'serve']),
  ).toBe(true);
  expect(isLauncher(['sh', '-c', 'exec node scripts/start.ts'])).toBe(true);
  expect(isLauncher(['/usr/bin/bash', '-c', 'pnpm start'])).toBe(true);
  expect(isLauncher(['node', '/root/.npm/_npx/c80d/node_modules/.bin/pnpm', 'start'])).toBe(true);
  expect(isLauncher(['/usr/bin/node', '/usr/lib/node_modules/npm/bin/npm-cli.js', 'start'])).toBe(true);
  expect(isLauncher(['npm exec pnpm@10.34.9 start'])).toBe(true);
  expect(isLauncher(['pnpm', 'start'])).toBe(true);
});

it('does not count login shells, supervisors or other programs', () => {
  expect(isLauncher(['-bash'])).toBe(false);
  expect(isLauncher(['/bin/bash'])).toBe(false);
  expect(isLauncher(['/sbin/init'])).toBe(false);
  expect(isLauncher(['/lib/systemd/systemd', '--user'])).toBe(false);
  expect(isLauncher(['PM2 v5.4.2: God Daemon (/root/.pm2)'])).toBe(false);
  expect(isLauncher(['/usr/bin/tini', '--', 'node', 'bin/plant-store.js'])).toBe(false);
  expect(isLauncher(['node', '/work/node_modules/vitest/vitest.mjs', 'run'])).toBe(false);
  expect(isLauncher([])).toBe(false);
});
