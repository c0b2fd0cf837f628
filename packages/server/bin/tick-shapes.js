// Keeps process.nextTick on its fast path for the life of the process. Node's HTTP stack calls nextTick several times
// per request (a write's callback, the request stream's end and close, the response's close), and nextTick builds each
// tick object with one object literal of computed keys ({ [async_id_symbol]: ..., [trigger_async_id_symbol]: ...,
// callback, args }). The feedback V8 keeps for each step of that literal has no polymorphic state: it records the map
// (hidden class) of the object at that step, and the first other map it meets turns it megamorphic for good; the
// optimized nextTick then defines every property through V8's runtime. Those maps are held only weakly, and tick
// objects live for a moment, so a major collection that finds none alive can take them (the likely way a process meets
// new ones: their layout is the same in a fast process and a slow one). Measured here with %DebugPrint of nextTick's
// feedback after 6 s of hot reads on SQLite: 8 of 10 server starts on Node 24 went megamorphic, 1 of 3 on Node 22, 2 of
// 3 on Node 26; a megamorphic nextTick took 800-1,400 ns a call where a monomorphic one took 150-550, and the server's
// CPU a request on the hot read was about a tenth higher (docs/performance.md). One tick object held from the start
// keeps the maps alive: with it, none of 11 starts went megamorphic (test/server/tick-shapes.system.test.ts). On
// PostgreSQL none of 4 starts went megamorphic without it.
import { executionAsyncResource } from 'node:async_hooks';

const kept = { tick: undefined };
let asked = false;

/**
 * Holds the first tick object from now on (inside a nextTick callback, the running async resource is its tick
 * object); returns where it is kept. Called once, first thing, by bin/plant-store.js; a second call changes nothing.
 * A process that runs the service as a library (runServer, buildApp) calls it first itself, from
 * `@plant-store/server/tick-shapes` (the bench's servers do).
 */
export function keepTickShapes() {
  if (!asked) {
    asked = true;
    process.nextTick(() => {
      kept.tick = executionAsyncResource();
    });
  }
  return kept;
}
