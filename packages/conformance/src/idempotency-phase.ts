// The `idempotency` check: the Idempotency-Key protocol of the contract's create. A repeat with the same key and body
// gets the first answer again, byte for byte, with `Idempotent-Replayed: true` (a 400 for the body too); the same key
// with another body is a 422; concurrent repeats make one create (the others are replays, or 409 with Retry-After
// while the first is in progress); and keys are kept per principal. A gateway that drops the header fails it.
import type { Exchange, Principal } from './http-client.js';
import { createPlant, plantName, plantOperations, slotId } from './phase-support.js';
import type { Answer, RunContext } from './run-context.js';

const CONCURRENT = 5;

export async function runIdempotencyPhase(run: RunContext): Promise<void> {
  const operations = plantOperations(run);
  const header = operations?.create.parameters.find((p) => p.in === 'header' && /^idempotency-key$/i.test(p.name));
  if (!operations || !header) return;
  const { create } = operations;
  const ok = create.successStatus;
  const check = (problem: string | undefined, exchanges: Exchange[]) =>
    run.results.record(create.operationId, 'idempotency', problem, exchanges);
  // Keys are kept for a day: a rerun with the same seed must not meet this run's keys.
  const keyOf = (index: number) => `cf-${run.options.seed.toString(36)}-${Date.now().toString(36)}-${index}`;
  const plant = (index: number) => ({
    id: slotId(run, 'idempotency', index),
    name: plantName(run, 'idempotency', index),
  });
  const replayed = (answer: Answer) => answer.exchange.headers['idempotent-replayed'] === 'true';
  const send = (principal: Principal, key: string, index: number, statuses: number[], because: string, name?: string) =>
    createPlant(
      run,
      operations,
      principal,
      { ...plant(index), ...(name === undefined ? {} : { name }), headers: { [header.name]: key } },
      { statuses, because },
    );

  // 1. A repeat gets the first answer again, marked replayed; another body under the key is a 422.
  const key = keyOf(1);
  const first = await send('token', key, 0, [ok], 'a new id and a new key');
  if (!first || first.exchange.status !== ok) return;
  const repeat = await send('token', key, 0, [ok], 'the same key and body: the first answer again');
  if (repeat) {
    check(
      repeat.exchange.status !== ok
        ? `a repeat with the same Idempotency-Key and body answered ${repeat.exchange.status}, not the first answer (${ok}) again`
        : !replayed(repeat)
          ? 'a repeat with the same Idempotency-Key and body came without Idempotent-Replayed: true'
          : repeat.exchange.text !== first.exchange.text
            ? `the replay's body ${JSON.stringify(repeat.exchange.text)} is not the first answer's ${JSON.stringify(first.exchange.text)}`
            : undefined,
      [first.exchange, repeat.exchange],
    );
  }
  const other = await send('token', key, 0, [422], 'the same key with another body', `${plant(0).name}-changed`);
  if (other) {
    check(
      other.exchange.status === 422
        ? undefined
        : `the same Idempotency-Key with another body answered ${other.exchange.status}, not 422`,
      [first.exchange, other.exchange],
    );
  }

  // 2. Concurrent repeats of one request make one create.
  const burstKey = keyOf(2);
  const burst = (
    await Promise.all(
      Array.from({ length: CONCURRENT }, () =>
        send('token', burstKey, 1, [ok, 409], 'concurrent repeats: one create, the rest replays or 409 while it runs'),
      ),
    )
  ).filter((answer) => answer !== undefined);
  const creates = burst.filter((answer) => answer.exchange.status === ok && !replayed(answer));
  const strays = burst.filter(
    (answer) =>
      !(
        answer.exchange.status === ok ||
        (answer.exchange.status === 409 && answer.exchange.headers['retry-after'] !== undefined)
      ),
  );
  const settled = await send('token', burstKey, 1, [ok], 'the concurrent requests are done: their answer again');
  check(
    creates.length !== 1
      ? `${CONCURRENT} concurrent requests with one Idempotency-Key made ${creates.length} creates (answers ${burst.map((a) => a.exchange.status).join(', ')}), not one`
      : strays.length
        ? `concurrent repeats of one Idempotency-Key answered ${strays.map((a) => a.exchange.status).join(', ')}: neither the replay nor a 409 with Retry-After`
        : settled && !(settled.exchange.status === ok && replayed(settled))
          ? `after the concurrent requests, a repeat answered ${settled.exchange.status}${replayed(settled) ? '' : ' without Idempotent-Replayed: true'}`
          : undefined,
    [...burst.map((answer) => answer.exchange), ...(settled ? [settled.exchange] : [])],
  );

  // 3. A 400 for the body is kept too (since 1.3.0): the same bytes get it again, replayed.
  const badKey = keyOf(3);
  const bad = await send('token', badKey, 2, [400], 'an empty name breaks the body rules', '');
  const badAgain = await send('token', badKey, 2, [400], 'the same bytes: the kept 400 again', '');
  if (bad && badAgain) {
    check(
      badAgain.exchange.status === 400 && replayed(badAgain) && badAgain.exchange.text === bad.exchange.text
        ? undefined
        : `the same refused body under its Idempotency-Key answered ${badAgain.exchange.status}${replayed(badAgain) ? '' : ' without Idempotent-Replayed: true'}, not the kept 400`,
      [bad.exchange, badAgain.exchange],
    );
  }

  // 4. Keys are per principal: the first request's key, sent by another principal (with a plant of its own name: no
  // two principals of a run share one), is its own new create, neither a replay nor a 422.
  if (run.options.secondToken) {
    const theirs = await send(
      'second-token',
      key,
      0,
      [ok],
      "another principal's key: a create of its own",
      `${plant(0).name}-second`,
    );
    if (theirs) {
      check(
        theirs.exchange.status === ok && !replayed(theirs)
          ? undefined
          : `another principal sending the same Idempotency-Key got ${theirs.exchange.status}${replayed(theirs) ? ' replayed' : ''}, not a create of its own: keys are kept per principal`,
        [first.exchange, theirs.exchange],
      );
    }
  }
}
