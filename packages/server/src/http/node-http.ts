// node:http as CommonJS loads it. An ES import of it builds its namespace by reading every export, and node:http's
// lazy WebSocket, CloseEvent and MessageEvent getters load Node's bundled undici then (Node 24: a 763 KB source,
// compiled), which the service never uses: an idle `serve` holds 23.0 MB of live heap without it, 25.1 with it.
import { createRequire } from 'node:module';

export const http: typeof import('node:http') = createRequire(import.meta.url)('node:http');
