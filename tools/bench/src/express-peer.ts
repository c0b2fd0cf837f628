// The peer for the benchmark: the same contract served the way many teams would, with Express 5 and
// express-openapi-validator (request validation and bearer security from openapi.yaml), on better-sqlite3 with the
// same durability (WAL, synchronous=FULL) and one commit per request.
// Bearer tokens `bench-token-<n>` are accepted as they are, each its own principal (the owner of its plants).
// Usage: PORT=3902 DATABASE_PATH=... node tools/bench/src/express-peer.ts
import { OPENAPI_PATH } from '@plant-store/contract/document';
import Database from 'better-sqlite3';
import express, { type NextFunction, type Request, type Response } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';

const TOKEN = /^Bearer (bench-token-\d+)$/;
const owner = (req: Request) => TOKEN.exec(req.headers.authorization ?? '')?.[1] ?? '';
const db = new Database(process.env.DATABASE_PATH ?? ':memory:');
db.pragma('journal_mode = WAL');
db.pragma('synchronous = FULL');
db.exec(
  'CREATE TABLE IF NOT EXISTS plants (owner TEXT, id INTEGER, name TEXT, tag TEXT, PRIMARY KEY (owner, id)) WITHOUT ROWID',
);
const insert = db.prepare('INSERT INTO plants (owner, id, name, tag) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING');
const list = db.prepare('SELECT name, tag FROM plants WHERE owner = ? ORDER BY id LIMIT ?');
const remove = db.prepare('DELETE FROM plants WHERE owner = ? AND id = ?');

const app = express();
app.use(express.json({ limit: '16kb' }));
app.use(
  OpenApiValidator.middleware({
    apiSpec: OPENAPI_PATH,
    validateRequests: true,
    validateResponses: false,
    validateSecurity: {
      handlers: { bearerAuth: (req: Request) => TOKEN.test(req.headers.authorization ?? '') },
    },
  }),
);
app.get('/plants', (req, res) => {
  const rows = list.all(owner(req), Number(req.query.limit ?? 100)) as { name: string; tag: string | null }[];
  res.json(rows.map((row) => (row.tag === null ? { name: row.name } : { name: row.name, tag: row.tag })));
});
app.post('/plants', (req, res) => {
  const { id, name, tag } = req.body as { id: number; name: string; tag?: string };
  if (insert.run(owner(req), id, name, tag ?? null).changes === 0) {
    res.status(409).json({ error: 409, message: 'duplicate id' });
    return;
  }
  res.json(tag === undefined ? { name } : { name, tag });
});
app.delete('/plants/:id', (req, res) => {
  if (remove.run(owner(req), Number(req.params.id)).changes === 0) {
    res.status(404).json({ error: 404, message: 'not found' });
    return;
  }
  res.status(204).end();
});
app.use((error: { status?: number; message: string }, _req: Request, res: Response, _next: NextFunction) => {
  res.status(error.status ?? 500).json({ error: error.status ?? 500, message: error.message });
});
app.listen(Number(process.env.PORT ?? 3902), '127.0.0.1', () => console.log('express-peer listening'));
