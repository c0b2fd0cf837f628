// bin/tick-shapes.js (`@plant-store/server/tick-shapes`, what an embedder imports; imported here by that name): a
// serving process keeps one tick object, so the feedback of process.nextTick's object literal keeps its one map per
// property and the optimized nextTick stays on its fast path. Read from V8 itself: the server runs with
// --allow-natives-syntax and a preload that prints nextTick's feedback (fixtures/print-tick-feedback.mjs) after a few
// thousand requests over a real socket.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { keepTickShapes } from '@plant-store/server/tick-shapes';
import { waitFor } from '@plant-store/test-kit';
import { BIN, type ServerProcess, startServerProcess, stopAll } from '@plant-store/test-kit/server-process';
import { afterAll, describe, expect, it } from 'vitest';

const PRINT = pathToFileURL(fileURLToPath(new URL('./fixtures/print-tick-feedback.mjs', import.meta.url))).href;
const dir = mkdtempSync(join(tmpdir(), 'plant-store-ticks-'));
const processes: ServerProcess[] = [];
afterAll(async () => {
  await stopAll(processes);
  rmSync(dir, { recursive: true, force: true });
});

describe('process.nextTick in a serving process', () => {
  it('keeps one of its tick objects, a real one', async () => {
    const kept = keepTickShapes();
    await new Promise((resolve) => process.nextTick(resolve));
    const tick = kept.tick as Record<string | symbol, unknown>;
    expect(Object.getOwnPropertySymbols(tick).map((symbol) => symbol.description)).toEqual(
      expect.arrayContaining(['async_id_symbol', 'trigger_async_id_symbol']),
    );
    expect(typeof tick.callback).toBe('function');
    // A second call keeps the same one.
    expect(keepTickShapes().tick).toBe(tick);
  });

  it('defines its tick objects through monomorphic feedback after thousands of requests', async () => {
    const server = await startServerProcess({ DATABASE_URL: `sqlite:${join(dir, 'ticks.db')}` }, [], {
      command: [process.execPath, '--allow-natives-syntax', '--import', PRINT, BIN],
    });
    processes.push(server);
    // 4,000 requests, 16 at a time: each answer runs nextTick several times in Node's HTTP stack.
    let left = 4_000;
    const client = async () => {
      for (; left > 0; left--) expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    };
    await Promise.all(Array.from({ length: 16 }, client));
    server.child.kill('SIGUSR2');
    await waitFor("the server's print of nextTick", () => server.errors().includes('tick feedback printed'));
    server.child.kill('SIGTERM');
    await server.exited;
    // What the process printed last may still be on its way through the pipe when it has exited.
    const stdout = server.child.stdout!;
    if (!stdout.readableEnded) await new Promise((resolve) => stdout.once('end', resolve));
    // nextTick's literal: [async_id_symbol], [trigger_async_id_symbol], (Node 24 on) [async_context_frame], callback,
    // args, each a DefineKeyedOwnPropertyInLiteral slot.
    const states = [...server.output().matchAll(/slot #\d+ DefineKeyedOwnPropertyInLiteral (\w+)/g)].map((m) => m[1]);
    expect(states.length).toBeGreaterThanOrEqual(4);
    expect(states).toEqual(states.map(() => 'MONOMORPHIC'));
  });
});
