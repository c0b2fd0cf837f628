// The `plant-store` command: serve (default), migrate, token create/list/revoke and webhook subscriptions.
// Bad arguments and bad configuration exit with code 2 and a message that says what to fix.
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { assertValidSubject } from './auth/principal.js';
import { issueToken, parseDuration, parseScopes } from './auth/tokens.js';
import { isWorker, superviseWorkers } from './cluster.js';
import { type Config, ConfigError, loadConfig } from './config.js';
import { serveClusterMetrics } from './observability/start-observability.js';
import { runServer } from './server.js';
import { openStore, sqliteFileOf } from './store/open-store.js';
import { LostDatabaseError } from './store/sqlite/file-guard.js';
import type { Store } from './store/store.js';
import { addSubscription, rotateSecret } from './webhooks/subscriptions.js';

const USAGE = `Usage: plant-store <command> [options]

Commands:
  serve [--workers N]              migrate, then serve the API (default); N processes share the port
  migrate                          apply pending database migrations; the one command that creates a
                                   SQLite database where one was lost (the other commands refuse to)
  token create --subject NAME [--scope read,write] [--expires-in 30d]
                                   issue a bearer token (printed once, alone on the last line)
  token list                       list tokens (never their secrets)
  token revoke ID                  revoke a token
  webhook add --url URL [--subject NAME]
                                   subscribe URL to new plants (every principal's, or NAME's); the signing
                                   secret is printed once, alone on the last line
  webhook list                     list subscriptions (never their secrets)
  webhook remove ID                remove a subscription and its deliveries
  webhook rotate-secret ID [--overlap 24h]
                                   new secret (printed once, last line); the old one also signs during the overlap
  webhook deliveries [--failed] [--limit N]
                                   the newest deliveries (default 50), or only the failed ones
  webhook replay DELIVERY_ID       send a delivery's event again (same webhook-id)
  conformance --base-url URL --token T [...]
                                   check a running deployment against openapi.yaml (no configuration or
                                   database needed; see \`plant-store conformance --help\`)

Configuration comes from the environment (PORT, HOST, DATABASE_URL, ...): see the README.`;

export interface Io {
  stdout: (line: string) => void;
  stderr: (line: string) => void;
  env: Record<string, string | undefined>;
}

const processIo: Io = {
  stdout: (line) => process.stdout.write(`${line}\n`),
  stderr: (line) => process.stderr.write(`${line}\n`),
  env: process.env,
};

class UsageError extends Error {}

/** Opens and migrates the store, runs `work` on it, closes it; `work` also gets the versions migrating applied. */
async function withStore<T>(
  config: Config,
  work: (store: Store, applied: number[]) => Promise<T>,
  { recreateLost = false } = {},
): Promise<T> {
  const store = await openStore(config.databaseUrl, { poolSize: 2, recreateLost });
  try {
    const applied = await store.migrate();
    return await work(store, applied);
  } finally {
    await store.close();
  }
}

function parse(args: string[], options: NonNullable<ParseArgsConfig['options']>, positionals = 0) {
  try {
    const parsed = parseArgs({ args, options, allowPositionals: positionals > 0, strict: true, tokens: true });
    // parseArgs keeps the last of a repeated option silently; each option here takes one value, given once.
    const seen = new Set<string>();
    for (const token of parsed.tokens ?? []) {
      if (token.kind !== 'option') continue;
      if (seen.has(token.name)) throw new UsageError(`--${token.name} is given more than once; give it once`);
      seen.add(token.name);
    }
    if (parsed.positionals.length > positionals) {
      throw new UsageError(`unexpected argument "${parsed.positionals[positionals]}"`);
    }
    return parsed;
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError((error as Error).message);
  }
}

async function tokenCommand(args: string[], config: Config, io: Io): Promise<number> {
  const [action, ...rest] = args;
  if (action === 'create') {
    const { values } = parse(rest, {
      subject: { type: 'string' },
      scope: { type: 'string' },
      'expires-in': { type: 'string' },
    });
    const subject = values.subject;
    if (typeof subject !== 'string' || subject === '') throw new UsageError('token create needs --subject NAME');
    let scopes: ReturnType<typeof parseScopes> | undefined;
    let expiresInMs: number | undefined;
    try {
      assertValidSubject(subject);
      scopes = typeof values.scope === 'string' ? parseScopes(values.scope) : undefined;
      expiresInMs = typeof values['expires-in'] === 'string' ? parseDuration(values['expires-in']) : undefined;
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    const issued = await withStore(config, (store) =>
      issueToken(store.tokens, {
        subject,
        ...(scopes ? { scopes } : {}),
        ...(expiresInMs === undefined ? {} : { expiresInMs }),
      }),
    );
    const { record } = issued;
    io.stdout(
      `Created token ${record.id} for "${record.subject}" with scopes ${record.scopes.join(',')}` +
        `${record.expiresAt ? `, expiring ${record.expiresAt.toISOString()}` : ', never expiring'}.`,
    );
    io.stdout('It is shown only once; store it now:');
    io.stdout(issued.token);
    return 0;
  }
  if (action === 'list') {
    parse(rest, {});
    const tokens = await withStore(config, (store) => store.tokens.list());
    if (tokens.length === 0) {
      io.stdout('no tokens');
      return 0;
    }
    io.stdout(['ID', 'SUBJECT', 'SCOPES', 'CREATED', 'EXPIRES', 'REVOKED'].join('\t'));
    for (const token of tokens) {
      io.stdout(
        [
          token.id,
          token.subject,
          token.scopes.join(','),
          token.createdAt.toISOString(),
          token.expiresAt?.toISOString() ?? '-',
          token.revokedAt?.toISOString() ?? '-',
        ].join('\t'),
      );
    }
    return 0;
  }
  if (action === 'revoke') {
    const { positionals } = parse(rest, {}, 1);
    const id = positionals[0];
    if (!id) throw new UsageError('token revoke needs the token id (see `plant-store token list`)');
    const revoked = await withStore(config, (store) => store.tokens.revoke(id, new Date()));
    if (!revoked) {
      io.stderr(`plant-store: no token has the id "${id}" (see \`plant-store token list\`)`);
      return 1;
    }
    io.stdout(`Revoked token ${id}.`);
    return 0;
  }
  throw new UsageError(action ? `unknown token command "${action}"` : 'token needs a command: create, list or revoke');
}

const time = (ms: number | null) => (ms === null ? '-' : new Date(ms).toISOString());

async function webhookCommand(args: string[], config: Config, io: Io): Promise<number> {
  const [action, ...rest] = args;
  const onePositional = (what: string) => {
    const { positionals } = parse(rest, {}, 1);
    if (!positionals[0]) throw new UsageError(`webhook ${action} needs ${what}`);
    return positionals[0];
  };
  if (action === 'add') {
    const { values } = parse(rest, { url: { type: 'string' }, subject: { type: 'string' } });
    if (typeof values.url !== 'string' || values.url === '') throw new UsageError('webhook add needs --url URL');
    const subject = typeof values.subject === 'string' ? values.subject : null;
    const added = await withStore(config, (store) =>
      addSubscription(store.webhooks, {
        url: values.url as string,
        subject,
        allowPrivate: config.webhooks.allowPrivate,
      }),
    ).catch((error: unknown) => {
      if (error instanceof TypeError) throw new UsageError(error.message);
      throw error;
    });
    io.stdout(
      `Created webhook ${added.id} for ${added.url} (${subject === null ? 'every principal' : `"${subject}"`}).`,
    );
    io.stdout('Its signing secret is shown only once; store it now:');
    io.stdout(added.secret);
    return 0;
  }
  if (action === 'list') {
    parse(rest, {});
    const subscriptions = await withStore(config, (store) => store.webhooks.listSubscriptions());
    if (subscriptions.length === 0) {
      io.stdout('no webhooks');
      return 0;
    }
    io.stdout(['ID', 'URL', 'SUBJECT', 'STATE', 'CREATED', 'OLD SECRET UNTIL'].join('\t'));
    for (const sub of subscriptions) {
      const state = sub.enabled ? 'enabled' : `disabled (${sub.disabledReason ?? 'unknown reason'})`;
      const until = sub.previousSecretUntil?.toISOString() ?? '-';
      io.stdout([sub.id, sub.url, sub.subject ?? '*', state, sub.createdAt.toISOString(), until].join('\t'));
    }
    return 0;
  }
  if (action === 'remove') {
    const id = onePositional('the webhook id (see `plant-store webhook list`)');
    if (!(await withStore(config, (store) => store.webhooks.removeSubscription(id)))) {
      io.stderr(`plant-store: no webhook has the id "${id}" (see \`plant-store webhook list\`)`);
      return 1;
    }
    io.stdout(`Removed webhook ${id} and its deliveries.`);
    return 0;
  }
  if (action === 'rotate-secret') {
    const { values, positionals } = parse(rest, { overlap: { type: 'string' } }, 1);
    const id = positionals[0];
    if (!id) throw new UsageError('webhook rotate-secret needs the webhook id');
    let overlapMs = 86_400_000;
    try {
      if (typeof values.overlap === 'string') overlapMs = parseDuration(values.overlap);
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    const secret = await withStore(config, (store) => rotateSecret(store.webhooks, id, overlapMs));
    if (!secret) {
      io.stderr(`plant-store: no webhook has the id "${id}" (see \`plant-store webhook list\`)`);
      return 1;
    }
    io.stdout(
      `Rotated the secret of ${id}; the old one also signs until ${new Date(Date.now() + overlapMs).toISOString()}.`,
    );
    io.stdout('The new secret is shown only once; store it now:');
    io.stdout(secret);
    return 0;
  }
  if (action === 'deliveries') {
    const { values } = parse(rest, { failed: { type: 'boolean' }, limit: { type: 'string' } });
    const limit = values.limit === undefined ? 50 : Number(values.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 10_000)
      throw new UsageError('--limit must be from 1 to 10000');
    const failedOnly = values.failed === true;
    const deliveries = await withStore(config, (store) => store.webhooks.listDeliveries({ failedOnly, limit }));
    if (deliveries.length === 0) {
      io.stdout(failedOnly ? 'no failed deliveries' : 'no deliveries');
      return 0;
    }
    io.stdout(['ID', 'WEBHOOK', 'EVENT', 'STATUS', 'ATTEMPTS', 'LAST ANSWER', 'CREATED', 'NEXT / FINISHED'].join('\t'));
    for (const d of deliveries) {
      const answer = d.lastError ?? (d.lastStatus === null ? '-' : `HTTP ${d.lastStatus}`);
      const when = d.status === 'pending' ? time(d.nextAttemptAt) : time(d.finishedAt);
      io.stdout([d.id, d.subscriptionId, d.eventId, d.status, d.attempts, answer, time(d.createdAt), when].join('\t'));
    }
    return 0;
  }
  if (action === 'replay') {
    const text = onePositional('the delivery id (see `plant-store webhook deliveries`)');
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
    io.stdout(`Queued delivery ${result}: the event of delivery ${id} again, with the same webhook-id.`);
    return 0;
  }
  throw new UsageError(
    action
      ? `unknown webhook command "${action}"`
      : 'webhook needs a command: add, list, remove, rotate-secret, deliveries or replay',
  );
}

async function serve(args: string[], config: Config): Promise<number> {
  const { values } = parse(args, { workers: { type: 'string' } });
  const workers = values.workers === undefined ? 1 : Number(values.workers);
  if (!Number.isInteger(workers) || workers < 1 || workers > 64) {
    throw new UsageError(
      `--workers must be a whole number from 1 to 64 (this machine has ${availableParallelism()} cores)`,
    );
  }
  if (workers > 1 && !isWorker) {
    // Migrate once here so the workers start on an up-to-date schema, then fork; the workers share the port.
    await withStore(config, async () => {});
    const closeMetrics = await serveClusterMetrics(config);
    await superviseWorkers(workers);
    closeMetrics();
    return 0;
  }
  await runServer(config);
  return -1; // keeps running until a signal
}

/** Runs the command line `argv` (without node and the script); resolves to the exit code, or -1 while serving. */
export async function main(argv: string[], io: Io = processIo): Promise<number> {
  const [command = 'serve', ...args] = argv;
  // Needs only a URL and tokens: no configuration is loaded, no database opened.
  if (command === 'conformance') return (await import('./conformance/command.js')).conformanceCommand(args, io);
  try {
    if (['help', '--help', '-h'].includes(command) || args.includes('--help') || args.includes('-h')) {
      io.stdout(USAGE);
      return 0;
    }
    const config = loadConfig(io.env);
    if (command === 'serve') return await serve(args, config);
    if (command === 'migrate') {
      parse(args, {});
      // The one command that creates a database on purpose, even where one was lost (store/sqlite/file-guard.ts).
      const file = sqliteFileOf(config.databaseUrl);
      if (file && !existsSync(file)) io.stderr(`Creating a new, empty database at ${file}.`);
      await withStore(
        config,
        async (_store, applied) =>
          io.stdout(applied.length === 0 ? 'Database is up to date.' : `Applied migrations ${applied.join(', ')}.`),
        { recreateLost: true },
      );
      return 0;
    }
    if (command === 'token') return await tokenCommand(args, config, io);
    if (command === 'webhook') return await webhookCommand(args, config, io);
    throw new UsageError(`unknown command "${command}"`);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`plant-store: ${error.message}\n\n${USAGE}`);
      return 2;
    }
    if (error instanceof ConfigError) {
      io.stderr(`plant-store: configuration error: ${error.message}`);
      return 2;
    }
    if (error instanceof LostDatabaseError) {
      io.stderr(`plant-store: ${error.message}`);
      return 2;
    }
    throw error;
  }
}
