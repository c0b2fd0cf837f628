// Test support: the PATH a user's shell has, for a bin started through its `#!/usr/bin/env node`. Under `pnpm test`
// PATH starts with node_modules/.bin, whose `node` is pnpm's shim: a shell running node as its child, so a SIGTERM
// would end the shell and leave the bin running.

/** PATH with this process's node first and no node_modules/.bin folder. */
export function userPath(): string {
  const node = process.execPath.slice(0, process.execPath.lastIndexOf('/'));
  return [node, ...(process.env.PATH ?? '').split(':')]
    .filter((entry) => !entry.includes('node_modules/.bin'))
    .join(':');
}
