// The open-loop generator's requests as bytes, built before the schedule starts so a send costs no string work: every
// read (one per principal and page size) once; a create, whose id changes each time, from its prebuilt head.

export class OpenLoopRequests {
  /** Reads by principal, then by page size (index = limit). */
  readonly #reads: Buffer[][];
  /** Each principal's create head, up to the Content-Length value. */
  readonly #createHeads: string[];

  constructor(host: string, tokens: readonly string[], limits: readonly number[]) {
    this.#reads = tokens.map((token) => {
      const byLimit: Buffer[] = [];
      for (const limit of limits) {
        byLimit[limit] = Buffer.from(
          `GET /plants?limit=${limit} HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${token}\r\n\r\n`,
          'latin1',
        );
      }
      return byLimit;
    });
    this.#createHeads = tokens.map(
      (token) =>
        `POST /plants HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: `,
    );
  }

  /** `GET /plants?limit=<limit>` as principal `principal` (limit among those given to the constructor). */
  read(principal: number, limit: number): Buffer {
    const bytes = this.#reads[principal]?.[limit];
    if (!bytes) throw new Error(`no prebuilt read for principal ${principal}, limit ${limit}`);
    return bytes;
  }

  /** `POST /plants` of plant `id` (named after `n`) as principal `principal`; the body is ASCII, so length = bytes. */
  create(principal: number, id: number, n: number): Buffer {
    const body = `{"id":${id},"name":"open loop ${n}","tag":"bench"}`;
    return Buffer.from(`${this.#createHeads[principal]}${body.length}\r\n\r\n${body}`, 'latin1');
  }
}
