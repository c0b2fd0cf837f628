// The open-loop load generator (run pinned to core 1 by open-loop.ts): sends requests on a fixed schedule, RATE per
// second, whether or not earlier answers have come back, and counts each latency from the request's *intended* send
// time. A request whose turn comes while every connection is busy waits in a backlog and that wait counts too, so a
// stalled server cannot hide its stall (no coordinated omission). The schedule, the alarm, the lag accounting and the
// refusal rule are send-schedule.ts's: sends leave at their time (no timer floor, no spinning event loop), each send's
// lag (how late it left) is kept, and each latency percentile carries a verdict against the lag at that percentile.
// Raw sockets, requests built once (or, for creates, from prebuilt parts) and a byte-level HTTP/1.1 reader keep the
// generator cheap enough for 80% of a 20k req/s server on one core; it reports its CPU use too.
// Input: a JSON object in the environment variable OPEN_LOOP (see Plan); output: one JSON line on stdout.
import { connect, type Socket } from 'node:net';
import { AnswerReader } from './http-answer-reader.js';
import { OpenLoopRequests } from './open-loop-requests.js';
import { judgeRun, percentiles, realClock, ScheduleDriver, SendSchedule } from './send-schedule.js';

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
const random = (low: number, high: number) => low + Math.floor(Math.random() * (high - low + 1));
const limits = plan.kind === 'mixed' ? Array.from({ length: 91 }, (_, i) => 10 + i) : [100];
const requests = new OpenLoopRequests(hostname, plan.tokens, limits);
let next = 0;

interface Job {
  intended: number;
  kind: 'get' | 'create';
  bytes: Buffer;
}

function job(intended: number): Job {
  const principal = plan.tokens.length === 1 ? 0 : random(0, plan.tokens.length - 1);
  if (plan.kind === 'create' || (plan.kind === 'mixed' && Math.random() < 0.1)) {
    next++;
    return { intended, kind: 'create', bytes: requests.create(principal, plan.base + next, next) };
  }
  const limit = plan.kind === 'mixed' ? random(10, 100) : 100;
  return { intended, kind: 'get', bytes: requests.read(principal, limit) };
}

interface Connection {
  socket: Socket;
  job: Job | undefined;
}

const clock = await realClock();
const latencies: Record<'get' | 'create', number[]> = { get: [], create: [] };
let errors = 0;
let non2xx = 0;
// The backlog: sends whose turn came while every connection was busy, oldest first (a queue with a moving head).
let backlog: Job[] = [];
let backlogHead = 0;
const idle: Connection[] = [];
const connections: Connection[] = [];
let maxBacklog = 0;
/** When the last answer came (the clock's ms). */
let lastAnswered = 0;

function finish(connection: Connection, status: number): void {
  const job = connection.job;
  if (!job) return;
  connection.job = undefined;
  lastAnswered = clock.now();
  latencies[job.kind].push(lastAnswered - job.intended);
  if (status < 200 || status > 299) non2xx++;
  dispatch(connection);
}

function dispatch(connection: Connection): void {
  if (backlogHead === backlog.length) {
    idle.push(connection);
    return;
  }
  const job = backlog[backlogHead++]!;
  if (backlogHead === backlog.length) {
    backlog = [];
    backlogHead = 0;
  }
  connection.job = job;
  connection.socket.write(job.bytes);
}

// Every connection reads into this one buffer (Node's `onread`): no Buffer and no stream machinery per read, so far
// less garbage, whose collections would stall the sends. The reader copies what it must keep (a head cut short).
const readBuffer = Buffer.alloc(64 * 1024);

function open(): Promise<Connection> {
  return new Promise((resolve, reject) => {
    const reader = new AnswerReader((status) => finish(connection, status));
    const socket = connect(
      {
        host: hostname,
        port: Number(port),
        noDelay: true,
        onread: {
          buffer: readBuffer,
          callback: (length: number) => {
            reader.feed(readBuffer.subarray(0, length));
            // The loop is awake anyway: whatever fell due leaves now, without the alarm.
            driver?.pump();
            return true;
          },
        },
      },
      () => resolve(connection),
    );
    const connection: Connection = { socket, job: undefined };
    socket.on('error', reject);
    socket.on('close', () => {
      if (connection.job) errors++;
      connection.job = undefined;
      const index = idle.indexOf(connection);
      if (index >= 0) idle.splice(index, 1);
    });
  });
}

let driver: ScheduleDriver | undefined;
for (let i = 0; i < plan.connections; i++) connections.push(await open());
idle.push(...connections);

const total = Math.round(plan.rate * plan.seconds);
const start = clock.now() + 50;
const cpuStart = process.cpuUsage();
const schedule = new SendSchedule({ rate: plan.rate, total, start });
driver = new ScheduleDriver(schedule, clock, (intended) => {
  backlog.push(job(intended));
  const connection = idle.pop();
  if (connection) dispatch(connection);
  maxBacklog = Math.max(maxBacklog, backlog.length - backlogHead);
});
await driver.run();
const sendsCpu = process.cpuUsage(cpuStart);
const sendsWallMs = clock.now() - start;
const alarmRings = clock.rings();
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
    // Answers a second over the time they took to come, the sending window at least: a server answering the
    // window's requests seconds after it (within the deadline) did not keep up with the rate.
    achievedRate: (answered / (Math.max(plan.seconds * 1000, lastAnswered - start) + 0.001)) * 1000,
    // Its CPU time over wall time while sending (the alarm thread's included).
    generatorCpu: (sendsCpu.user + sendsCpu.system) / 1000 / sendsWallMs,
    lag,
    maxBacklog,
    // How often the alarm had to wake the loop; the other sends left from a loop already awake for answers.
    alarmRings,
  }),
);
