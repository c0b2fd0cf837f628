// The open-loop load generator (run pinned to core 1 by open-loop.ts): sends requests on a fixed schedule, RATE per
// second, whether or not earlier answers have come back, and counts each latency from the request's *intended* send
// time. A request whose turn comes while every connection is busy waits in a backlog and that wait counts too, so a
// stalled server cannot hide its stall (no coordinated omission). The schedule, the alarm, the lag accounting and the
// refusal rule are send-schedule.ts's: sends leave at their time (no timer floor, no spinning event loop), each send's
// lag (how late it left) is kept, and each latency percentile carries a verdict against the lag at that percentile.
// Raw sockets and a minimal HTTP/1.1 reader keep the generator cheap; it reports its CPU use too.
// Input: a JSON object in the environment variable OPEN_LOOP (see Plan); output: one JSON line on stdout.
import { connect, type Socket } from 'node:net';
import { judgeRun, percentiles, realClock, runSchedule, SendSchedule } from './send-schedule.js';

interface Plan {
  url: string;
  rate: number;
  seconds: number;
  connections: number;
  /** 'get' reads 100-plant pages, 'create' inserts new ids, 'mixed' is 90% reads (limit 10..100) and 10% creates. */
  kind: 'get' | 'create' | 'mixed';
  tokens: string[];
  base: number;
}

const plan = JSON.parse(process.env.OPEN_LOOP ?? '') as Plan;
const { hostname, port } = new URL(plan.url);
let next = 0;
const random = (low: number, high: number) => low + Math.floor(Math.random() * (high - low + 1));

function request(): { kind: 'get' | 'create'; bytes: Buffer } {
  const token = plan.tokens[random(0, plan.tokens.length - 1)]!;
  const write = plan.kind === 'create' || (plan.kind === 'mixed' && Math.random() < 0.1);
  if (write) {
    next++;
    const body = `{"id":${plan.base + next},"name":"open loop ${next}","tag":"bench"}`;
    return {
      kind: 'create',
      bytes: Buffer.from(
        `POST /plants HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      ),
    };
  }
  const limit = plan.kind === 'mixed' ? random(10, 100) : 100;
  return {
    kind: 'get',
    bytes: Buffer.from(
      `GET /plants?limit=${limit} HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: Bearer ${token}\r\n\r\n`,
    ),
  };
}

interface Job {
  intended: number;
  kind: 'get' | 'create';
  bytes: Buffer;
}
interface Connection {
  socket: Socket;
  job: Job | undefined;
  buffer: Buffer;
}

const clock = await realClock();
const latencies: Record<'get' | 'create', number[]> = { get: [], create: [] };
let errors = 0;
let non2xx = 0;
const backlog: Job[] = [];
const idle: Connection[] = [];
const connections: Connection[] = [];
let maxBacklog = 0;

function finish(connection: Connection, status: number): void {
  const job = connection.job!;
  connection.job = undefined;
  latencies[job.kind].push(clock.now() - job.intended);
  if (status < 200 || status > 299) non2xx++;
  dispatch(connection);
}

function dispatch(connection: Connection): void {
  const job = backlog.shift();
  if (!job) {
    idle.push(connection);
    return;
  }
  connection.job = job;
  connection.socket.write(job.bytes);
}

// Reads one answer at a time: status line, headers, then Content-Length bytes of body (every server here sets it).
function onData(connection: Connection, chunk: Buffer): void {
  connection.buffer = connection.buffer.length === 0 ? chunk : Buffer.concat([connection.buffer, chunk]);
  for (;;) {
    const end = connection.buffer.indexOf('\r\n\r\n');
    if (end < 0 || !connection.job) return;
    const head = connection.buffer.subarray(0, end).toString('latin1');
    const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
    if (connection.buffer.length < end + 4 + length) return;
    connection.buffer = connection.buffer.subarray(end + 4 + length);
    finish(connection, Number(head.slice(9, 12)));
  }
}

function open(): Promise<Connection> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port), noDelay: true }, () => resolve(connection));
    const connection: Connection = { socket, job: undefined, buffer: Buffer.alloc(0) };
    socket.on('data', (chunk) => onData(connection, chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      if (connection.job) errors++;
      connection.job = undefined;
      const index = idle.indexOf(connection);
      if (index >= 0) idle.splice(index, 1);
    });
  });
}

for (let i = 0; i < plan.connections; i++) connections.push(await open());
idle.push(...connections);

const total = Math.round(plan.rate * plan.seconds);
const start = clock.now() + 50;
const cpuStart = process.cpuUsage();
const schedule = new SendSchedule({ rate: plan.rate, total, start });
await runSchedule(schedule, clock, (intended) => {
  backlog.push({ intended, ...request() });
  const connection = idle.pop();
  if (connection) dispatch(connection);
  maxBacklog = Math.max(maxBacklog, backlog.length);
});
const sendsCpu = process.cpuUsage(cpuStart);
const sendsWallMs = clock.now() - start;
await clock.close();
// Answers still outstanding get a deadline of 10 s after the last send; missing ones count as errors.
const deadline = performance.now() + 10_000;
while (latencies.get.length + latencies.create.length + errors < total && performance.now() < deadline) {
  await new Promise((resolve) => setTimeout(resolve, 5));
}
for (const connection of connections) connection.socket.destroy();

const answered = latencies.get.length + latencies.create.length;
const lag = schedule.lag();
const summary = (values: number[]) => {
  const latency = percentiles(values);
  return { ...latency, verdicts: judgeRun(latency, lag) };
};
console.log(
  JSON.stringify({
    get: summary(latencies.get),
    create: summary(latencies.create),
    all: summary([...latencies.get, ...latencies.create]),
    sent: schedule.sent,
    answered,
    errors: errors + (total - answered - errors),
    non2xx,
    achievedRate: (answered / (plan.seconds * 1000 + 0.001)) * 1000,
    // Its CPU time over wall time while sending (the alarm thread's included).
    generatorCpu: (sendsCpu.user + sendsCpu.system) / 1000 / sendsWallMs,
    lag,
    maxBacklog,
  }),
);
