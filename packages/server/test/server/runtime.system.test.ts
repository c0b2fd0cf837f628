// The Node.js line this run is on. CI runs the suites once per supported line (22, 24, 26) and says which one it
// expects in PLANT_STORE_EXPECT_NODE; without it, the line pinned as the root devDependency `node` is expected. A
// matrix entry that silently fell back to another Node (the machine's own, say) fails here. The README's curl
// walk-through then runs against the real `plant-store serve` process on this same Node binary.
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readlinkSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { BIN, startServerProcess } from '@plant-store/test-kit/server-process';
import { describe, expect, it } from 'vitest';

const root = new URL('../../../../', import.meta.url);
const pinned: string = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')).devDependencies.node;
const expectedMajor = process.env.PLANT_STORE_EXPECT_NODE ?? pinned.split('.')[0];
// The machine's own Node, when it is older than the service supports (this machine kind ships Node 20).
const oldNode = ['/usr/bin/node', '/usr/local/bin/node'].find(
  (path) => existsSync(path) && Number(execFileSync(path, ['-p', 'process.versions.node.split(".")[0]'])) < 22,
);

describe(`runtime: Node ${expectedMajor}`, () => {
  it('runs on the Node line this run expects', () => {
    expect(process.versions.node.split('.')[0]).toBe(expectedMajor);
  });

  it('serves the README walk-through from `plant-store serve` on this Node and exits 0 on SIGTERM', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'plant-store-runtime-'));
    const env = { DATABASE_URL: `sqlite:${join(dir, 'plant-store.db')}` };
    try {
      const cli = await promisify(execFile)(process.execPath, [BIN, 'token', 'create', '--subject', 'alice'], {
        env: { ...process.env, ...env },
      });
      const token = cli.stdout.trim().split('\n').at(-1) ?? '';
      const server = await startServerProcess(env);
      // The server process is this very Node binary, not whatever `node` is first on PATH.
      expect(realpathSync(readlinkSync(`/proc/${server.child.pid}/exe`))).toBe(realpathSync(process.execPath));

      const auth = { authorization: `Bearer ${token}` };
      const created = await fetch(`${server.url}/plants`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: '{"id": 1, "name": "Fern", "tag": "indoor"}',
      });
      expect(created.status).toBe(200);
      expect(await created.json()).toEqual({ name: 'Fern', tag: 'indoor' });
      const listed = await fetch(`${server.url}/plants`, { headers: auth });
      expect(await listed.json()).toEqual([{ name: 'Fern', tag: 'indoor' }]);
      const deleted = await fetch(`${server.url}/plants/1`, { method: 'DELETE', headers: auth });
      expect(deleted.status).toBe(204);

      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.skipIf(oldNode === undefined)(
    'turns away a Node older than 22 by name, before loading the database driver',
    async () => {
      const failed = await promisify(execFile)(oldNode ?? '', [BIN, 'token', 'list']).catch((error) => error);
      expect(failed.code).toBe(2);
      expect(failed.stderr).toContain('needs Node.js 22 or newer');
    },
  );
});
