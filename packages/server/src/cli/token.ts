// `plant-store token create|list|revoke`: bearer tokens for the API (auth/tokens.ts keeps only their hashes).

import { assertValidSubject } from '../auth/principal.js';
import { issueToken, parseDuration, parseScopes } from '../auth/tokens.js';
import type { Config } from '../config.js';
import { describeConfiguredDatabase } from '../store/describe-database.js';
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

async function create(args: string[], config: Config, io: Io): Promise<number> {
  const { values } = parse(args, {
    subject: { type: 'string' },
    scope: { type: 'string' },
    'expires-in': { type: 'string' },
  });
  const subject = values.subject;
  if (typeof subject !== 'string' || subject === '') throw new UsageError('token create needs --subject NAME');
  const { scopes, expiresInMs } = asUsage(() => {
    assertValidSubject(subject);
    return {
      scopes: typeof values.scope === 'string' ? parseScopes(values.scope) : undefined,
      expiresInMs: typeof values['expires-in'] === 'string' ? parseDuration(values['expires-in']) : undefined,
    };
  });
  const issued = await withStore(config, (store) =>
    issueToken(store.tokens, {
      subject,
      ...(scopes ? { scopes } : {}),
      ...(expiresInMs === undefined ? {} : { expiresInMs }),
    }),
  );
  const { record } = issued;
  // A token written to another database than the service's is refused with 401: say which one this was.
  io.stderr(`Wrote the token to ${describeConfiguredDatabase(config)}.`);
  io.stdout(
    `Created token ${record.id} for "${record.subject}" with scopes ${record.scopes.join(',')}` +
      `${record.expiresAt ? `, expiring ${record.expiresAt.toISOString()}` : ', never expiring'}.`,
  );
  io.stdout('It is shown only once; store it now:');
  io.stdout(issued.token);
  return 0;
}

async function list(args: string[], config: Config, io: Io): Promise<number> {
  const { values } = parse(args, JSON_OPTION);
  const tokens = await withStore(config, (store) => store.tokens.list());
  return printList(io, values.json === true, {
    header: ['ID', 'SUBJECT', 'SCOPES', 'CREATED', 'EXPIRES', 'REVOKED'],
    rows: tokens.map((token) => [
      token.id,
      token.subject,
      token.scopes.join(','),
      token.createdAt.toISOString(),
      token.expiresAt?.toISOString() ?? '-',
      token.revokedAt?.toISOString() ?? '-',
    ]),
    // Never the secret: the store keeps only its hash, and a record carries none.
    records: tokens.map(({ id, subject, scopes, createdAt, expiresAt, revokedAt }) => ({
      id,
      subject,
      scopes,
      createdAt,
      expiresAt,
      revokedAt,
    })),
    empty: 'no tokens',
  });
}

async function revoke(args: string[], config: Config, io: Io): Promise<number> {
  const { positionals } = parse(args, {}, 1);
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

const ACTIONS: Actions = { create, list, revoke };

export const tokenCommand: Command = {
  name: 'token',
  usage: [
    {
      synopsis: 'token create --subject NAME [--scope read,write] [--expires-in 30d]',
      description: ['issue a bearer token (printed once, alone on the last line)'],
      options: [
        '--subject NAME     the principal the token acts for (1 to 200 characters, no control characters)',
        '--scope LIST       read, write or read,write (default read,write)',
        '--expires-in D     a lifetime such as 90m, 12h or 30d (default: never expires)',
      ],
      notes: [
        'The token is written to the database DATABASE_URL names (the one on stderr); run this with the',
        "service's own DATABASE_URL, or the service will not know the token.",
      ],
    },
    {
      synopsis: 'token list [--json]',
      description: ['list tokens (never their secrets)'],
      options: ['--json   the tokens as one JSON array (dates in ISO 8601, null where none), for scripts'],
    },
    { synopsis: 'token revoke ID', description: ['revoke a token'] },
  ],
  run: (args, { config, io }) => runAction('token', ACTIONS, args, config, io),
};
