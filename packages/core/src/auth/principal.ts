// Who is calling: the principal a bearer token acts for, and what it may do. The server's auth/ decides who that is
// (opaque tokens, JWTs); the handlers only read it.
import type { Scope } from '@plant-store/contract';

export interface Principal {
  /** Stable identity; plants are owned by it. */
  subject: string;
  scopes: readonly Scope[];
}
