// What an import checks the same way on every engine, beyond what readArchive checks line by line.
import { ArchiveError, type ArchiveRecord, type ReadRecord } from './format.js';

/** What a record repeats when its insert hits a unique key, for the refusal. */
export function repeated(record: ArchiveRecord): string {
  switch (record.kind) {
    case 'plant':
      return `plant ${record.id} of ${JSON.stringify(record.owner)} appears twice in the archive`;
    case 'owner':
      return `the version of ${JSON.stringify(record.owner)} appears twice in the archive`;
    case 'token':
      return `token ${record.id} (or its secret's hash) appears twice in the archive`;
    case 'subscription':
      return `webhook subscription ${record.id} appears twice in the archive`;
    case 'idempotency-key':
      return `Idempotency-Key ${JSON.stringify(record.key)} of ${JSON.stringify(record.owner)} appears twice in the archive`;
    default:
      return `${record.kind} record repeats one before it`;
  }
}

/** Checks that a delivery follows its subscription's record. */
export function deliveryChecker(): (read: ReadRecord) => void {
  const subscriptions = new Set<string>();
  return ({ line, record }) => {
    if (record.kind === 'subscription') subscriptions.add(record.id);
    if (record.kind === 'delivery' && !subscriptions.has(record.subscriptionId)) {
      throw new ArchiveError(
        line,
        `a delivery to webhook subscription ${record.subscriptionId}, which no subscription record before it names`,
      );
    }
  };
}
