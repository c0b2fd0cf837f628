// Why a command failed, in one line: an error that wraps its cause (the store's "the PostgreSQL database is
// unreachable") would hide what PostgreSQL said: a database that does not exist, a refused login. The cause, its code
// and what to check follow the message.

const HINTS: Record<string, string> = {
  '3D000': 'the database does not exist: create it (createdb) or fix its name in DATABASE_URL',
  '28P01': 'password authentication failed: check the user and password in DATABASE_URL',
  '28000': "the server refused this login: check the user in DATABASE_URL and the server's pg_hba.conf",
  ECONNREFUSED: 'nothing listens there: is the database running, and are the host and port in DATABASE_URL right?',
  ENOTFOUND: 'the host name does not resolve: check the host in DATABASE_URL',
};

/** The error's message, then its cause's (with the code, and a hint for the common ones). */
export function failureReason(error: Error): string {
  const cause = error.cause as (Error & { code?: string; errors?: Error[] }) | undefined;
  const said = cause?.errors?.length ? cause.errors.map((each) => each.message).join('; ') : cause?.message;
  if (!cause || !said) return error.message;
  const code = cause.code ?? (cause.errors?.[0] as { code?: string } | undefined)?.code;
  // The hints name DATABASE_URL; a failure of another setting's database names that one.
  const setting = (error as { setting?: string }).setting ?? 'DATABASE_URL';
  const hint = code ? HINTS[code]?.replaceAll('DATABASE_URL', setting) : undefined;
  return `${error.message}: ${said}${code && !said.includes(code) ? ` (${code})` : ''}${hint ? `; ${hint}` : ''}`;
}
