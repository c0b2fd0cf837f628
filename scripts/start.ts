// `pnpm start`: compiles what is stale (nothing, on a built tree: a stat of the sources), then becomes the server.
// process.execve replaces this process, same pid, so the signals a supervisor or pnpm sends reach the server itself.
// The start script runs this with the pinned Node's own binary (node_modules/node/bin/node), not `node`: on pnpm's PATH
// that is the node_modules/.bin/node shim, a shell that runs node as its child and keeps the SIGINT pnpm passes on.
// Run by Node's own type stripping (`node scripts/start.ts`), without tsx: starting stays well under a second.
// The server's Node flags are given here (serve-flags.js), so the bin does not start its process a second time for them.
import { join } from 'node:path';
import { missingServeFlags, SERVE_ENV } from '../packages/server/bin/serve-flags.js';
import { buildStale, describeBuilt, root, SERVER_BUILDS } from './stale-builds.ts';

const built = buildStale(SERVER_BUILDS);
if (built.length > 0) console.error(`pnpm start: compiled ${describeBuilt(built)}`);
const bin = join(root, 'packages/server/bin/plant-store.js');
const flags = missingServeFlags(process.execArgv, process.env);
const argv = [process.execPath, ...flags, bin, 'serve', ...process.argv.slice(2)];
if (typeof process.execve === 'function') process.execve(process.execPath, argv, { ...SERVE_ENV, ...process.env });
else {
  // Node before 22.15 has no execve: run the bin in this process instead (the same pid all the same).
  process.argv = argv;
  await import(bin);
}
