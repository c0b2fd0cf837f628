// Bare Fastify for the device run (run.sh): the same route, response schema and page as scripts/bench/bare-fastify.ts,
// run from the deploy folder's node_modules (no tsx there).
import Fastify from 'fastify';

const page = Array.from({ length: 100 }, (_, i) => ({ name: `plant number ${i + 1}`, tag: `tag${i + 1}` }));
const app = Fastify({ logger: false });
app.get(
  '/plants',
  {
    schema: {
      response: {
        200: {
          type: 'array',
          items: {
            type: 'object',
            required: ['name'],
            properties: { name: { type: 'string' }, tag: { type: 'string' } },
          },
        },
      },
    },
  },
  async () => page,
);
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT) });
