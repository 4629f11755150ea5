/**
 * Child of test/bench/handler-cpu.ts: one variant of GET /users/{userid}, invoked in-process,
 * measured on request (IPC): CPU of this process per request over a few seconds at 10
 * concurrent callers. The engine (DynamoDB Local) is another process, so only the handler and
 * its SDK count. Variants: `ours` (the users function, its bundle when BENCH_CDK_OUT is set),
 * `ours-traced` (the same with STEPWISE_TRACING=true in a Lambda-like environment: the X-Ray SDK
 * builds its segments and sends them by UDP to a socket here that drops them), `peer`
 * (peer-handler.ts).
 */
import { createSocket } from 'node:dgram';
import { apiEvent } from './api-event.ts';

type Handler = (event: unknown, context: unknown) => Promise<{ statusCode: number }>;
const variant = process.argv[2];
const { BENCH_TOKEN, BENCH_USERID, DDB_ENDPOINT, S3_ENDPOINT, SFN_ENDPOINT } = process.env;
const CONNECTIONS = 10;
const event = () => apiEvent('GET', '/users/{userid}', { params: { userid: BENCH_USERID! }, token: BENCH_TOKEN });

/** UDP datagrams (X-Ray segment documents) received by this process's stand-in daemon. */
let segments = 0;
if (variant === 'ours-traced') {
  const daemon = createSocket('udp4');
  daemon.on('message', () => segments++);
  await new Promise<void>((resolve) => daemon.bind(0, '127.0.0.1', () => resolve()));
  Object.assign(process.env, {
    STEPWISE_TRACING: 'true',
    AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x',
    LAMBDA_TASK_ROOT: process.cwd(),
    AWS_LAMBDA_FUNCTION_NAME: 'users',
    _X_AMZN_TRACE_ID: 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=557abcec3ee5a047;Sampled=1',
    AWS_XRAY_DAEMON_ADDRESS: `127.0.0.1:${daemon.address().port}`,
    AWS_XRAY_CONTEXT_MISSING: 'IGNORE_ERROR',
  });
} else if (variant === 'ours') {
  process.env.STEPWISE_TRACING = 'false';
}

let handler: Handler;
if (variant === 'peer') {
  Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'local', AWS_SECRET_ACCESS_KEY: 'local', AWS_REGION: 'us-east-1' });
  handler = (await import('./peer-handler.ts')).handler as unknown as Handler;
} else {
  const { loadUsersHandler } = await import('./request-path.ts');
  const stack = { ddbEndpoint: DDB_ENDPOINT!, s3Endpoint: S3_ENDPOINT!, sfnEndpoint: SFN_ENDPOINT! };
  handler = (await loadUsersHandler(stack as never, event(), process.env.BENCH_CDK_OUT || undefined)) as Handler;
}

async function measure(seconds: number) {
  let count = 0;
  const segmentsBefore = segments;
  const until = Date.now() + seconds * 1000;
  const cpu = process.cpuUsage();
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (Date.now() < until) {
        const result = await handler(event(), {});
        if (result.statusCode !== 200) throw new Error(`${variant} answered ${result.statusCode}`);
        count++;
      }
    }),
  );
  const used = process.cpuUsage(cpu);
  return {
    cpuUs: (used.user + used.system) / count,
    rps: count / seconds,
    segments: (segments - segmentsBefore) / count,
  };
}

process.on('message', async (message: { seconds: number }) => {
  try {
    process.send!({ ok: true, ...(await measure(message.seconds)) });
  } catch (error) {
    process.send!({ ok: false, error: String(error) });
  }
});
process.send!({ ready: true });
