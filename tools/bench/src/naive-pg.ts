// The "naive" PostgreSQL peer for the benchmark: Fastify and a `pg` pool the way most services are written, with
// no cache and one query per request (JSON-schema validation of the body, the page built from rows in JavaScript).
// Bearer tokens `bench-token-<n>` are accepted as they are, each its own principal; the table lives in SCHEMA.
// Usage: PORT=3903 DATABASE_URL=postgres://... SCHEMA=... tsx tools/bench/src/naive-pg.ts
import Fastify from 'fastify';
import pg from 'pg';

const schema = process.env.SCHEMA ?? 'bench_naive';
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10, options: `-c search_path=${schema}` });
const setup = new pg.Client({ connectionString: process.env.DATABASE_URL });
await setup.connect();
await setup.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
await setup.query(
  `CREATE TABLE IF NOT EXISTS ${schema}.plants (owner TEXT, id BIGINT, name TEXT NOT NULL, tag TEXT, PRIMARY KEY (owner, id))`,
);
await setup.end();

const TOKEN = /^Bearer (bench-token-\d+)$/;
const app = Fastify({ logger: false });
app.addHook('onRequest', async (request, reply) => {
  const owner = TOKEN.exec(request.headers.authorization ?? '')?.[1];
  if (!owner) return reply.code(401).send({ error: 401, message: 'missing or invalid token' });
  (request as unknown as { owner: string }).owner = owner;
});
const ownerOf = (request: object) => (request as { owner: string }).owner;
const plant = {
  type: 'object',
  required: ['name'],
  properties: { name: { type: 'string' }, tag: { type: 'string' } },
} as const;

app.get(
  '/plants',
  {
    schema: {
      querystring: { type: 'object', properties: { limit: { type: 'integer', minimum: 1, maximum: 1000 } } },
      response: { 200: { type: 'array', items: plant } },
    },
  },
  async (request) => {
    const { limit = 100 } = request.query as { limit?: number };
    const { rows } = await pool.query('SELECT name, tag FROM plants WHERE owner = $1 ORDER BY id LIMIT $2', [
      ownerOf(request),
      limit,
    ]);
    return rows.map((row) => (row.tag === null ? { name: row.name } : row));
  },
);
app.post(
  '/plants',
  {
    schema: {
      body: {
        type: 'object',
        required: ['id', 'name'],
        additionalProperties: false,
        properties: {
          id: { type: 'integer' },
          name: { type: 'string', minLength: 1, maxLength: 200 },
          tag: { type: 'string', minLength: 1, maxLength: 100 },
        },
      },
      response: {
        200: plant,
        409: { type: 'object', properties: { error: { type: 'integer' }, message: { type: 'string' } } },
      },
    },
  },
  async (request, reply) => {
    const { id, name, tag } = request.body as { id: number; name: string; tag?: string };
    const result = await pool.query(
      'INSERT INTO plants (owner, id, name, tag) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING',
      [ownerOf(request), id, name, tag ?? null],
    );
    if (result.rowCount === 0) return reply.code(409).send({ error: 409, message: 'duplicate id' });
    return tag === undefined ? { name } : { name, tag };
  },
);
app.delete('/plants/:id', async (request, reply) => {
  const { id } = request.params as { id: string };
  const result = await pool.query('DELETE FROM plants WHERE owner = $1 AND id = $2', [ownerOf(request), id]);
  if (result.rowCount === 0) return reply.code(404).send({ error: 404, message: 'not found' });
  return reply.code(204).send();
});
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 3903) });
console.log('naive-pg listening');
