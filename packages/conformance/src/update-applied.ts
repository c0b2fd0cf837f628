// The `update-applied` check: an update the service acknowledged is what the principal sees next. The very next list
// shows the plant under the name the update gave it (a page cache that updates do not reach fails here), and where the
// contract reads one plant, that read answers every field the update sent, as sent.
import type { Principal } from './http-client.js';
import { listEveryPlant } from './plant-sweep.js';
import type { RunContext } from './run-context.js';
import { toJson } from './schema-arbitraries.js';

/** Checks that the update of `id` by `principal` with `sent` (its body, with the name field `nameField`) is seen. */
export async function checkUpdateApplied(
  run: RunContext,
  update: { operationId: string },
  principal: Principal,
  id: bigint,
  sent: Record<string, unknown>,
  nameField: string | undefined,
): Promise<void> {
  const name = nameField === undefined ? undefined : sent[nameField];
  if (typeof name === 'string') {
    const names = await listEveryPlant(run, run.call, principal);
    if (names !== undefined) {
      run.results.record(
        update.operationId,
        'update-applied',
        names.includes(name)
          ? undefined
          : `plant ${id} was updated (named ${JSON.stringify(name)}), but the list right after does not show that name`,
      );
    }
  }
  const read = run.contract.byRole('read');
  if (!read) return;
  const answer = await run.call(
    read,
    { method: read.method, target: read.path.replace(/\{[^}]+\}/, String(id)), principal },
    { statuses: [read.successStatus], because: 'the principal updated this plant a moment ago' },
  );
  if (answer?.exchange.status !== read.successStatus) return;
  const body = (answer.body ?? {}) as Record<string, unknown>;
  const changed = Object.keys(sent).filter(
    (field) => body[field] === undefined || toJson(body[field]) !== toJson(sent[field]),
  );
  run.results.record(
    update.operationId,
    'update-applied',
    changed.length === 0
      ? undefined
      : `plant ${id} was updated, but ${read.operationId} right after answers other ${changed.join(', ')}: ${answer.exchange.text.slice(0, 120)}`,
    [answer.exchange],
  );
}
