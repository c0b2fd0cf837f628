// `plant-store webhook ...`: the "new plant" webhook subscriptions and their deliveries (webhooks/).

import { parseDuration } from '../auth/tokens.js';
import type { Config } from '../config.js';
import { addSubscription, rotateSecret } from '../webhooks/subscriptions.js';
import {
  type Actions,
  asUsage,
  type Command,
  type Io,
  JSON_OPTION,
  parse,
  printList,
  runAction,
  UsageError,
  withStore,
} from './command.js';

const time = (ms: number | null) => (ms === null ? '-' : new Date(ms).toISOString());

/** Says that no webhook has `id`: exit code 1. */
function noSuchWebhook(io: Io, id: string): number {
  io.stderr(`plant-store: no webhook has the id "${id}" (see \`plant-store webhook list\`)`);
  return 1;
}

/** The one positional argument of `webhook <action> ID`. */
function onePositional(action: string, args: string[], what: string): string {
  const { positionals } = parse(args, {}, 1);
  if (!positionals[0]) throw new UsageError(`webhook ${action} needs ${what}`);
  return positionals[0];
}

async function add(args: string[], config: Config, io: Io): Promise<number> {
  const { values } = parse(args, { url: { type: 'string' }, subject: { type: 'string' } });
  const url = values.url;
  if (typeof url !== 'string' || url === '') throw new UsageError('webhook add needs --url URL');
  const subject = typeof values.subject === 'string' ? values.subject : null;
  const added = await withStore(config, (store) =>
    addSubscription(store.webhooks, { url, subject, allowPrivate: config.webhooks.allowPrivate }),
  ).catch((error: unknown) => {
    if (error instanceof TypeError) throw new UsageError(error.message);
    throw error;
  });
  io.stdout(`Created webhook ${added.id} for ${added.url} (${subject === null ? 'every principal' : `"${subject}"`}).`);
  io.stdout('Its signing secret is shown only once; store it now:');
  io.stdout(added.secret);
  return 0;
}

async function list(args: string[], config: Config, io: Io): Promise<number> {
  const { values } = parse(args, JSON_OPTION);
  const subscriptions = await withStore(config, (store) => store.webhooks.listSubscriptions());
  return printList(io, values.json === true, {
    header: ['ID', 'URL', 'SUBJECT', 'STATE', 'CREATED', 'OLD SECRET UNTIL'],
    rows: subscriptions.map((sub) => [
      sub.id,
      sub.url,
      sub.subject ?? '*',
      sub.enabled
        ? `enabled${sub.circuitOpenUntil ? ` (circuit open until ${sub.circuitOpenUntil.toISOString()})` : ''}`
        : `disabled (${sub.disabledReason ?? 'unknown reason'})`,
      sub.createdAt.toISOString(),
      sub.previousSecretUntil?.toISOString() ?? '-',
    ]),
    // Never the secrets: a subscription record carries none.
    records: subscriptions.map((sub) => ({
      id: sub.id,
      url: sub.url,
      subject: sub.subject,
      enabled: sub.enabled,
      disabledReason: sub.disabledReason,
      circuitOpenUntil: sub.circuitOpenUntil,
      createdAt: sub.createdAt,
      previousSecretUntil: sub.previousSecretUntil,
    })),
    empty: 'no webhooks',
  });
}

async function remove(args: string[], config: Config, io: Io): Promise<number> {
  const id = onePositional('remove', args, 'the webhook id (see `plant-store webhook list`)');
  if (!(await withStore(config, (store) => store.webhooks.removeSubscription(id)))) return noSuchWebhook(io, id);
  io.stdout(`Removed webhook ${id} and its deliveries.`);
  return 0;
}

async function enable(args: string[], config: Config, io: Io): Promise<number> {
  const id = onePositional('enable', args, 'the webhook id (see `plant-store webhook list`)');
  if (!(await withStore(config, (store) => store.webhooks.enableSubscription(id)))) return noSuchWebhook(io, id);
  io.stdout(`Enabled webhook ${id}: new plants are sent to it again (replay failed deliveries to resend them).`);
  return 0;
}

async function rotate(args: string[], config: Config, io: Io): Promise<number> {
  const { values, positionals } = parse(args, { overlap: { type: 'string' } }, 1);
  const id = positionals[0];
  if (!id) throw new UsageError('webhook rotate-secret needs the webhook id');
  const overlap = values.overlap;
  const overlapMs = typeof overlap === 'string' ? asUsage(() => parseDuration(overlap)) : 86_400_000;
  const secret = await withStore(config, (store) => rotateSecret(store.webhooks, id, overlapMs));
  if (!secret) return noSuchWebhook(io, id);
  io.stdout(
    `Rotated the secret of ${id}; the old one also signs until ${new Date(Date.now() + overlapMs).toISOString()}.`,
  );
  io.stdout('The new secret is shown only once; store it now:');
  io.stdout(secret);
  return 0;
}

async function deliveries(args: string[], config: Config, io: Io): Promise<number> {
  const { values } = parse(args, { failed: { type: 'boolean' }, limit: { type: 'string' }, ...JSON_OPTION });
  const limit = values.limit === undefined ? 50 : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 10_000) throw new UsageError('--limit must be from 1 to 10000');
  const failedOnly = values.failed === true;
  const found = await withStore(config, (store) => store.webhooks.listDeliveries({ failedOnly, limit }));
  return printList(io, values.json === true, {
    header: ['ID', 'WEBHOOK', 'EVENT', 'STATUS', 'ATTEMPTS', 'LAST ANSWER', 'CREATED', 'NEXT / FINISHED'],
    rows: found.map((d) => [
      String(d.id),
      d.subscriptionId,
      d.eventId,
      d.status,
      String(d.attempts),
      d.lastError ?? (d.lastStatus === null ? '-' : `HTTP ${d.lastStatus}`),
      time(d.createdAt),
      d.status === 'pending' ? time(d.nextAttemptAt) : time(d.finishedAt),
    ]),
    records: found.map((d) => ({
      id: d.id,
      webhook: d.subscriptionId,
      event: d.eventId,
      status: d.status,
      attempts: d.attempts,
      lastStatus: d.lastStatus,
      lastError: d.lastError,
      createdAt: time(d.createdAt),
      nextAttemptAt: d.status === 'pending' ? time(d.nextAttemptAt) : null,
      finishedAt: d.finishedAt === null ? null : time(d.finishedAt),
    })),
    empty: failedOnly ? 'no failed deliveries' : 'no deliveries',
  });
}

async function replay(args: string[], config: Config, io: Io): Promise<number> {
  const text = onePositional('replay', args, 'the delivery id (see `plant-store webhook deliveries`)');
  const id = Number(text);
  if (!/^\d{1,15}$/.test(text)) throw new UsageError(`"${text}" is not a delivery id (a whole number)`);
  const result = await withStore(config, (store) => store.webhooks.replay(id, Date.now()));
  if (result === 'unknown') {
    io.stderr(`plant-store: no delivery has the id ${id} (see \`plant-store webhook deliveries\`)`);
    return 1;
  }
  if (result === 'disabled') {
    io.stderr(`plant-store: the webhook of delivery ${id} was removed or is disabled; nothing was queued`);
    return 1;
  }
  if (typeof result === 'object') {
    const which = result.pending === id ? `delivery ${id} is` : `delivery ${result.pending}, of the same event, is`;
    io.stderr(
      `plant-store: ${which} still pending and goes out at its next attempt; nothing was queued ` +
        '(replay a delivery once it is delivered or failed, see `plant-store webhook deliveries`)',
    );
    return 1;
  }
  io.stdout(`Queued delivery ${result}: the event of delivery ${id} again, with the same webhook-id.`);
  return 0;
}

const ACTIONS: Actions = {
  add,
  list,
  remove,
  enable,
  'rotate-secret': rotate,
  deliveries,
  replay,
};

export const webhookCommand: Command = {
  name: 'webhook',
  usage: [
    {
      synopsis: 'webhook add --url URL [--subject NAME]',
      description: [
        "subscribe URL to new plants (every principal's, or NAME's); the signing",
        'secret is printed once, alone on the last line',
      ],
      options: [
        '--url URL        where to POST each event: an https URL to a public address (http and private',
        '                 addresses only with WEBHOOK_ALLOW_PRIVATE=true), with no user name or password',
        "--subject NAME   only NAME's new plants (default: every principal's)",
      ],
    },
    {
      synopsis: 'webhook list [--json]',
      description: ['list subscriptions (never their secrets)'],
      options: ['--json   the subscriptions as one JSON array (dates in ISO 8601, null where none), for scripts'],
    },
    { synopsis: 'webhook remove ID', description: ['remove a subscription and its deliveries'] },
    { synopsis: 'webhook enable ID', description: ['enable a subscription again (after a 410 Gone disabled it)'] },
    {
      synopsis: 'webhook rotate-secret ID [--overlap 24h]',
      description: ['new secret (printed once, last line); the old one also signs during the overlap'],
    },
    {
      synopsis: 'webhook deliveries [--failed] [--limit N] [--json]',
      description: ['the newest deliveries (default 50), or only the failed ones'],
      options: [
        '--failed    only the deliveries that failed for good (replay them with `webhook replay ID`)',
        '--limit N   how many, newest first (1 to 10000, default 50)',
        '--json      the deliveries as one JSON array (times in ISO 8601, null where none), for scripts',
      ],
    },
    { synopsis: 'webhook replay DELIVERY_ID', description: ["send a delivery's event again (same webhook-id)"] },
  ],
  run: (args, { config, io }) => runAction('webhook', ACTIONS, args, config, io),
};
