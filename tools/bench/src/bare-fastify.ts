// The framework ceiling for the benchmark: a bare Fastify route answering the same 100-plant page from memory,
// serialized by the same response schema. Usage: PORT=3901 node tools/bench/src/bare-fastify.ts
import { keepTickShapes } from '@plant-store/server/tick-shapes';
import Fastify from 'fastify';

// As plant-store's bin does, so the yardstick is never the slower for V8's megamorphic nextTick (tick-shapes.js).
keepTickShapes();

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
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 3901) });
console.log('bare-fastify listening');
