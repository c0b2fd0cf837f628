// The archive `plant-store export` writes and `plant-store import` reads, the same on every engine: JSON Lines, a
// header, the records, a trailer with the count of each kind and a SHA-256 over every byte before it. docs/cli.md
// defines it; this module is that definition in code (writing, reading, checking each line).
import { createHash, type Hash } from 'node:crypto';
import type { Writable } from 'node:stream';

export const ARCHIVE_FORMAT = 'plant-store-archive';
/** The format version this release writes and the newest it reads. */
export const ARCHIVE_VERSION = 1;

/** The record kinds, in the order an export writes them (a delivery follows its subscription). */
export const RECORD_KINDS = ['owner', 'plant', 'token', 'subscription', 'delivery', 'idempotency-key'] as const;
export type RecordKind = (typeof RECORD_KINDS)[number];
export type RecordCounts = Record<RecordKind, number>;

export interface ArchiveHeader {
  kind: 'header';
  format: typeof ARCHIVE_FORMAT;
  version: number;
  /** The contract version (openapi.yaml's info.version) of the service that wrote it. */
  contract: string;
  /** The engine it was taken from: 'sqlite' or 'postgres'. */
  engine: string;
  /** When the snapshot was taken (ISO 8601). */
  exportedAt: string;
}

/** An owner's data version (the ETag's source); owners whose version never moved have none. */
export interface OwnerRecord {
  kind: 'owner';
  owner: string;
  version: string;
}

export interface PlantRecord {
  kind: 'plant';
  owner: string;
  /** The int64 id as decimal text: exact beyond 2^53. */
  id: string;
  name: string;
  tag: string | null;
  createdAt: string;
}

export interface TokenArchiveRecord {
  kind: 'token';
  id: string;
  subject: string;
  scopes: string[];
  /** SHA-256 of the secret, base64; the secret itself is never stored anywhere. */
  secretHash: string;
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
}

/** Times in ms since the epoch, as the outbox keeps them. */
export interface SubscriptionRecord {
  kind: 'subscription';
  id: string;
  url: string;
  subject: string | null;
  secret: string;
  previousSecret: string | null;
  previousSecretUntil: number | null;
  enabled: boolean;
  disabledReason: string | null;
  createdAt: number;
  failureStreak: number;
  circuitOpenUntil: number | null;
  circuitOpens: number;
}

/** A delivery not yet finished (pending), with its attempts so far. */
export interface DeliveryRecord {
  kind: 'delivery';
  subscriptionId: string;
  eventId: string;
  payload: string;
  attempts: number;
  createdAt: number;
  nextAttemptAt: number;
  lastStatus: number | null;
  lastError: string | null;
}

/** An Idempotency-Key's kept answer, still within its lifetime. */
export interface KeyRecord {
  kind: 'idempotency-key';
  owner: string;
  key: string;
  fingerprint: string;
  status: number;
  body: string;
  createdAt: number;
}

export type ArchiveRecord =
  | OwnerRecord
  | PlantRecord
  | TokenArchiveRecord
  | SubscriptionRecord
  | DeliveryRecord
  | KeyRecord;

export interface ArchiveTrailer {
  kind: 'trailer';
  counts: RecordCounts;
  /** SHA-256 (hex) of every byte before the trailer's line. */
  sha256: string;
}

/** A bad archive: the line it was found on (1 is the header) and why. */
export class ArchiveError extends Error {
  override name = 'ArchiveError';
  constructor(
    readonly line: number,
    reason: string,
  ) {
    super(`line ${line}: ${reason}`);
  }
}

export const emptyCounts = (): RecordCounts =>
  Object.fromEntries(RECORD_KINDS.map((kind) => [kind, 0])) as RecordCounts;

/** Writes an archive to `sink` with backpressure: each `write` resolves once the sink can take more. */
export class ArchiveWriter {
  readonly counts = emptyCounts();
  bytes = 0;
  readonly #sink: Writable;
  readonly #hash: Hash = createHash('sha256');
  #pending = '';

  constructor(sink: Writable, header: Omit<ArchiveHeader, 'kind' | 'format' | 'version'>) {
    this.#sink = sink;
    this.#line({ kind: 'header', format: ARCHIVE_FORMAT, version: ARCHIVE_VERSION, ...header });
  }

  get records(): number {
    return RECORD_KINDS.reduce((sum, kind) => sum + this.counts[kind], 0);
  }

  async write(records: readonly ArchiveRecord[]): Promise<void> {
    for (const record of records) {
      this.counts[record.kind]++;
      this.#line(record);
    }
    if (this.#pending.length >= 1 << 16) await this.#flush();
  }

  /** Writes the trailer; resolves once the sink has taken every byte. Returns the checksum. */
  async finish(): Promise<string> {
    await this.#flush();
    const sha256 = this.#hash.digest('hex');
    const trailer: ArchiveTrailer = { kind: 'trailer', counts: this.counts, sha256 };
    await this.#send(Buffer.from(`${JSON.stringify(trailer)}\n`));
    return sha256;
  }

  #line(value: object): void {
    this.#pending += `${JSON.stringify(value)}\n`;
  }

  async #flush(): Promise<void> {
    if (this.#pending === '') return;
    const bytes = Buffer.from(this.#pending);
    this.#pending = '';
    this.#hash.update(bytes);
    await this.#send(bytes);
  }

  #send(bytes: Buffer): Promise<void> {
    this.bytes += bytes.length;
    const sink = this.#sink;
    if (sink.destroyed || sink.errored) return Promise.reject(sink.errored ?? new Error('the output was closed'));
    return new Promise((resolve, reject) => {
      const failed = (error: Error) => {
        sink.off('drain', drained);
        reject(error);
      };
      const drained = () => {
        sink.off('error', failed);
        resolve();
      };
      if (sink.write(bytes)) {
        resolve();
        return;
      }
      sink.once('drain', drained);
      sink.once('error', failed);
    });
  }
}

/** One record of an archive as read, with its line number. */
export interface ReadRecord {
  line: number;
  record: ArchiveRecord;
}

/**
 * Reads an archive from its bytes: yields the header first (checked), then its records (checked) in batches, a batch
 * per chunk read (so a reader's awaits cost little per record); returns only once the trailer's counts and checksum matched and nothing followed it, so a
 * reader that commits after the last record commits only a whole, unchanged archive. Throws ArchiveError otherwise.
 */
export async function* readArchive(
  input: AsyncIterable<Buffer | string>,
): AsyncGenerator<ArchiveHeader | ReadRecord[]> {
  const hash = createHash('sha256');
  const counts = emptyCounts();
  let line = 0;
  /** The start of a line the last chunk ended inside, not hashed yet (it may be the trailer's). */
  let rest: Buffer | undefined;
  let trailer: { line: number; value: ArchiveTrailer } | undefined;
  let header = false;
  /** The object on line `line`, checked: the header (the first line), the trailer (undefined), or a record. */
  const take = (value: Fields): ArchiveHeader | ReadRecord | undefined => {
    if (trailer) throw new ArchiveError(line, 'data after the trailer');
    if (!header) {
      header = true;
      return checkHeader(value, line);
    }
    if (value.kind === 'trailer') {
      trailer = { line, value: checkTrailer(value, line) };
      return undefined;
    }
    const record = checkRecord(value, line);
    counts[record.kind]++;
    return { line, record };
  };
  for await (const chunk of input) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    // Every byte before the trailer is hashed, a chunk's whole lines at once: from `hashed` to the last line's end.
    let hashed = 0;
    let start = 0;
    const batch: ReadRecord[] = [];
    for (let end = bytes.indexOf(10); end >= 0; end = bytes.indexOf(10, start)) {
      const piece = bytes.subarray(start, end);
      const carried = rest;
      rest = undefined;
      line++;
      const taken = take(parseLine(carried ? Buffer.concat([carried, piece]) : piece, line));
      if (taken === undefined) {
        hash.update(bytes.subarray(hashed, start));
        hashed = bytes.length;
      } else if ('kind' in taken) yield taken;
      else batch.push(taken);
      if (carried && !trailer) hash.update(carried);
      start = end + 1;
    }
    if (!trailer) hash.update(bytes.subarray(hashed, start));
    if (start < bytes.length) {
      const tail = bytes.subarray(start);
      rest = rest ? Buffer.concat([rest, tail]) : Buffer.from(tail);
    }
    if (batch.length > 0) yield batch;
  }
  // A last line without its newline (an editor dropped it) counts, unless it is a line cut short.
  if (rest && rest.length > 0) {
    line++;
    let value: Fields;
    try {
      value = parseLine(rest, line);
    } catch {
      throw new ArchiveError(line, 'the archive ends inside a line (it was cut short: copy it again)');
    }
    const taken = take(value);
    if (taken && 'kind' in taken) yield taken;
    else if (taken) {
      hash.update(rest);
      yield [taken];
    }
  }
  if (!header) throw new ArchiveError(1, 'the archive is empty');
  if (!trailer) throw new ArchiveError(line, 'the archive ends without its trailer (it was cut short: copy it again)');
  for (const kind of RECORD_KINDS) {
    if (trailer.value.counts[kind] !== counts[kind]) {
      throw new ArchiveError(
        trailer.line,
        `the trailer counts ${trailer.value.counts[kind]} ${kind} records, the archive holds ${counts[kind]}`,
      );
    }
  }
  const sha256 = hash.digest('hex');
  if (sha256 !== trailer.value.sha256) {
    throw new ArchiveError(
      trailer.line,
      `checksum mismatch: the trailer says SHA-256 ${trailer.value.sha256}, the archive's bytes give ${sha256} ` +
        '(it was changed or damaged)',
    );
  }
}

type Fields = Record<string, unknown>;

function parseLine(bytes: Buffer, line: number): Fields & { kind?: unknown } {
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new ArchiveError(line, 'not a JSON object (the archive is damaged)');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ArchiveError(line, 'not a JSON object (the archive is damaged)');
  }
  return value as Fields;
}

function checkHeader(value: Fields, line: number): ArchiveHeader {
  if (value.kind !== 'header' || value.format !== ARCHIVE_FORMAT) {
    throw new ArchiveError(line, `not a plant-store archive (its first line must be the ${ARCHIVE_FORMAT} header)`);
  }
  const version = value.version;
  if (!Number.isInteger(version) || (version as number) < 1) {
    throw new ArchiveError(line, `the header's format version must be a whole number, got ${JSON.stringify(version)}`);
  }
  if ((version as number) > ARCHIVE_VERSION) {
    throw new ArchiveError(
      line,
      `archive format version ${version} is newer than this plant-store reads (${ARCHIVE_VERSION}): import it with ` +
        'the release that wrote it, or a later one',
    );
  }
  return {
    kind: 'header',
    format: ARCHIVE_FORMAT,
    version: version as number,
    contract: text(value, 'contract', line, 'header'),
    engine: text(value, 'engine', line, 'header'),
    exportedAt: text(value, 'exportedAt', line, 'header'),
  };
}

function checkTrailer(value: Fields, line: number): ArchiveTrailer {
  const counts = value.counts as Fields | undefined;
  if (typeof counts !== 'object' || counts === null) throw new ArchiveError(line, 'the trailer has no counts');
  const checked = emptyCounts();
  for (const kind of RECORD_KINDS) {
    const count = counts[kind];
    if (!Number.isInteger(count) || (count as number) < 0) {
      throw new ArchiveError(line, `the trailer's count of ${kind} records must be a whole number`);
    }
    checked[kind] = count as number;
  }
  const sha256 = value.sha256;
  if (typeof sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(sha256)) {
    throw new ArchiveError(line, "the trailer's sha256 must be 64 hexadecimal digits");
  }
  return { kind: 'trailer', counts: checked, sha256 };
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

function checkRecord(value: Fields, line: number): ArchiveRecord {
  const kind = value.kind;
  switch (kind) {
    case 'owner':
      return { kind, owner: text(value, 'owner', line, kind), version: integerText(value, 'version', line, kind) };
    case 'plant':
      return {
        kind,
        owner: text(value, 'owner', line, kind),
        id: integerText(value, 'id', line, kind),
        name: text(value, 'name', line, kind),
        tag: optionalText(value, 'tag', line, kind),
        createdAt: time(value, 'createdAt', line, kind),
      };
    case 'token': {
      const scopes = value.scopes;
      if (!Array.isArray(scopes) || !scopes.every((scope) => scope === 'read' || scope === 'write')) {
        throw new ArchiveError(line, 'token record: "scopes" must be a list of "read" and "write"');
      }
      const secretHash = text(value, 'secretHash', line, kind);
      if (Buffer.from(secretHash, 'base64').length !== 32) {
        throw new ArchiveError(line, 'token record: "secretHash" must be a SHA-256 in base64');
      }
      return {
        kind,
        id: text(value, 'id', line, kind),
        subject: text(value, 'subject', line, kind),
        scopes: scopes as string[],
        secretHash,
        createdAt: time(value, 'createdAt', line, kind),
        expiresAt: value.expiresAt === null ? null : time(value, 'expiresAt', line, kind),
        revokedAt: value.revokedAt === null ? null : time(value, 'revokedAt', line, kind),
      };
    }
    case 'subscription':
      if (typeof value.enabled !== 'boolean') {
        throw new ArchiveError(line, 'subscription record: "enabled" must be true or false');
      }
      return {
        kind,
        id: text(value, 'id', line, kind),
        url: text(value, 'url', line, kind),
        subject: optionalText(value, 'subject', line, kind),
        secret: text(value, 'secret', line, kind),
        previousSecret: optionalText(value, 'previousSecret', line, kind),
        previousSecretUntil: optionalWhole(value, 'previousSecretUntil', line, kind),
        enabled: value.enabled,
        disabledReason: optionalText(value, 'disabledReason', line, kind),
        createdAt: whole(value, 'createdAt', line, kind),
        failureStreak: whole(value, 'failureStreak', line, kind),
        circuitOpenUntil: optionalWhole(value, 'circuitOpenUntil', line, kind),
        circuitOpens: whole(value, 'circuitOpens', line, kind),
      };
    case 'delivery':
      return {
        kind,
        subscriptionId: text(value, 'subscriptionId', line, kind),
        eventId: text(value, 'eventId', line, kind),
        payload: text(value, 'payload', line, kind),
        attempts: whole(value, 'attempts', line, kind),
        createdAt: whole(value, 'createdAt', line, kind),
        nextAttemptAt: whole(value, 'nextAttemptAt', line, kind),
        lastStatus: optionalWhole(value, 'lastStatus', line, kind),
        lastError: optionalText(value, 'lastError', line, kind),
      };
    case 'idempotency-key':
      return {
        kind,
        owner: text(value, 'owner', line, kind),
        key: text(value, 'key', line, kind),
        fingerprint: text(value, 'fingerprint', line, kind),
        status: whole(value, 'status', line, kind),
        body: text(value, 'body', line, kind),
        createdAt: whole(value, 'createdAt', line, kind),
      };
    case 'header':
      throw new ArchiveError(line, 'a second header (two archives joined together?)');
    default:
      throw new ArchiveError(
        line,
        `unknown record kind ${JSON.stringify(kind)} (this release knows ${RECORD_KINDS.join(', ')}; ` +
          'a newer release may have written it)',
      );
  }
}

function text(value: Fields, field: string, line: number, kind: string): string {
  const found = value[field];
  if (typeof found !== 'string') throw new ArchiveError(line, `${kind} record: "${field}" must be a string`);
  return found;
}

function optionalText(value: Fields, field: string, line: number, kind: string): string | null {
  return value[field] === null || value[field] === undefined ? null : text(value, field, line, kind);
}

function integerText(value: Fields, field: string, line: number, kind: string): string {
  const found = value[field];
  if (typeof found === 'string' && /^-?\d{1,19}$/.test(found)) {
    const number = BigInt(found);
    if (number >= INT64_MIN && number <= INT64_MAX) return number.toString();
  }
  throw new ArchiveError(line, `${kind} record: "${field}" must be a 64-bit integer written as a string`);
}

function whole(value: Fields, field: string, line: number, kind: string): number {
  const found = value[field];
  if (!Number.isSafeInteger(found)) throw new ArchiveError(line, `${kind} record: "${field}" must be a whole number`);
  return found as number;
}

function optionalWhole(value: Fields, field: string, line: number, kind: string): number | null {
  return value[field] === null || value[field] === undefined ? null : whole(value, field, line, kind);
}

function time(value: Fields, field: string, line: number, kind: string): string {
  const found = text(value, field, line, kind);
  if (Number.isNaN(Date.parse(found)))
    throw new ArchiveError(line, `${kind} record: "${field}" must be an ISO 8601 time`);
  return found;
}

/** One consistent snapshot of a database, read in RECORD_KINDS order. */
export interface Snapshot {
  /** How many records it holds (for progress). */
  readonly total: number;
  /** Its records in batches; the snapshot ends (its transaction too) once they are read or the reader stops. */
  batches(): AsyncGenerator<ArchiveRecord[]>;
}

/** Thrown when the target of an import already holds data; nothing was changed. */
export class NotEmptyError extends Error {
  override name = 'NotEmptyError';
}

/** What an engine does for export and import (store/open-store.ts names each engine's). */
export interface ArchiveEngine {
  /** Opens a snapshot (one read transaction) of the migrated database `databaseUrl` names, while it serves. */
  snapshot(databaseUrl: string, directUrl: string | null, work: (snapshot: Snapshot) => Promise<void>): Promise<void>;
  /**
   * Loads `records` (the header first) into the migrated, empty database `databaseUrl` names, in one transaction that
   * commits only once `records` ended without an error (readArchive checked the trailer).
   */
  load(
    databaseUrl: string,
    directUrl: string | null,
    records: AsyncIterable<ArchiveHeader | ReadRecord[]>,
  ): Promise<void>;
}

/** The tables an import needs empty, as a refusal names what they hold: [table, one, many]. */
export const IMPORT_TABLES = [
  ['plants', 'plant', 'plants'],
  ['tokens', 'token', 'tokens'],
  ['webhook_subscriptions', 'webhook subscription', 'webhook subscriptions'],
  ['webhook_deliveries', 'webhook delivery', 'webhook deliveries'],
  ['idempotency_keys', 'kept Idempotency-Key', 'kept Idempotency-Keys'],
] as const;

/** The refusal of a target that holds data, from each table's count (IMPORT_TABLES order); undefined when empty. */
export function notEmpty(counts: readonly number[]): NotEmptyError | undefined {
  const held = IMPORT_TABLES.flatMap(([, one, many], index) => {
    const count = counts[index] ?? 0;
    return count === 0 ? [] : [`${count} ${count === 1 ? one : many}`];
  });
  if (held.length === 0) return undefined;
  return new NotEmptyError(
    `the target database is not empty: it holds ${held.join(', ')}; import only into an empty database ` +
      '(a new SQLite file, or a new PostgreSQL database or schema)',
  );
}
