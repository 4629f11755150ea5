/**
 * A local Step Functions endpoint: a small HTTP server speaking the AWS JSON 1.0 protocol
 * (StartExecution, DescribeExecution, StopExecution, ListExecutions), so application code
 * uses the real @aws-sdk/client-sfn against it. Executions run in-process with
 * aws-local-stepfunctions, from the same ASL object the CDK pipeline stack deploys.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ExecutionAbortedError, ExecutionError, ExecutionTimeoutError, StateMachine } from 'aws-local-stepfunctions';
import { prepareDefinition, type TaskHandler } from './sfn-local-definition.ts';

export interface LocalStateMachineOptions {
  /** arn:aws:states:<region>:<account>:stateMachine:<name> */
  arn: string;
  /** The ASL object with `${Name}` placeholders, exactly as deployed. */
  definition: object;
  /** Placeholder values other than task functions (those get fake Lambda ARNs). */
  substitutions: Record<string, string>;
  /** Keyed by the substitution NAME, e.g. InspectPackageFunctionArn. */
  taskHandlers: Record<string, TaskHandler>;
  /** Wait state name -> milliseconds actually waited. */
  waitTimeOverridesMs?: Record<string, number>;
  /** Task state name -> milliseconds between retries. */
  retryIntervalOverridesMs?: Record<string, number>;
}

export interface LocalStepFunctions {
  endpoint: string;
  close(): Promise<void>;
}

type ExecutionStatus = 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'TIMED_OUT' | 'ABORTED';

interface Execution {
  executionArn: string;
  stateMachineArn: string;
  name: string;
  status: ExecutionStatus;
  startDate: Date;
  stopDate?: Date;
  input: string;
  output?: string;
  error?: string;
  cause?: string;
  abort: () => void;
}

interface LoadedStateMachine {
  options: LocalStateMachineOptions;
  machine: StateMachine;
  taskHandlersByState: ReturnType<typeof prepareDefinition>['taskHandlersByState'];
}

/** A client error in the shape the SDK turns into a named exception. */
class ServiceError extends Error {
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

const STATE_MACHINE_ARN = /^arn:aws[\w-]*:states:([\w-]+):(\d{12}):stateMachine:([\w-]{1,80})$/;
const EXECUTION_NAME = /^[^\s<>{}[\]?*"#%\\^|~`$&,;:/\u0000-\u001f\u007f-\u009f]{1,80}$/;
const MAX_INPUT_BYTES = 256 * 1024;

export async function startStepFunctionsEndpoint(options: {
  port?: number;
  stateMachines: LocalStateMachineOptions[];
}): Promise<LocalStepFunctions> {
  const machines = new Map<string, LoadedStateMachine>();
  for (const machineOptions of options.stateMachines) {
    const region = STATE_MACHINE_ARN.exec(machineOptions.arn)?.[1];
    if (!region) throw new Error(`Not a state machine ARN: ${machineOptions.arn}`);
    const prepared = prepareDefinition({ ...machineOptions, region });
    machines.set(machineOptions.arn, {
      options: machineOptions,
      // Checked against the ASL schema once, by test/infra/state-machine-definitions.test.ts: the
      // library's check compiles that schema again at every stack start (0.6 s of CPU).
      machine: new StateMachine(prepared.definition as never, { validationOptions: { noValidate: true } }),
      taskHandlersByState: prepared.taskHandlersByState,
    });
  }
  const executions = new Map<string, Execution>();

  const operations: Record<string, (request: any) => unknown> = {
    StartExecution: (request) => startExecution(machines, executions, request),
    DescribeExecution: (request) => describeExecution(findExecution(executions, request.executionArn)),
    StopExecution: (request) => stopExecution(findExecution(executions, request.executionArn), request),
    ListExecutions: (request) => listExecutions(machines, executions, request),
  };

  const server = http.createServer((req, res) => {
    void answer(req, res, operations);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    endpoint: `http://127.0.0.1:${port}`,
    close: async () => {
      // Pending Waits and retries hold timers; stop them so the process can exit.
      for (const execution of executions.values()) {
        if (execution.status === 'RUNNING') finish(execution, { status: 'ABORTED' }).abort();
      }
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}

async function answer(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  operations: Record<string, (request: any) => unknown>,
): Promise<void> {
  const reply = (status: number, body: unknown, headers: Record<string, string> = {}) => {
    const text = JSON.stringify(body);
    res.writeHead(status, {
      'content-type': 'application/x-amz-json-1.0',
      'content-length': Buffer.byteLength(text),
      'x-amzn-requestid': randomUUID(),
      ...headers,
    });
    res.end(text);
  };
  try {
    const target = String(req.headers['x-amz-target'] ?? '');
    const operation = target.startsWith('AWSStepFunctions.')
      ? operations[target.slice('AWSStepFunctions.'.length)]
      : undefined;
    const text = await readBody(req);
    if (req.method !== 'POST' || !operation) {
      throw new ServiceError('UnknownOperationException', `Operation ${target || '(none)'} is not supported locally`);
    }
    let request: unknown;
    try {
      request = text ? JSON.parse(text) : {};
    } catch {
      throw new ServiceError('SerializationException', 'Request body is not valid JSON');
    }
    reply(200, operation(request ?? {}));
  } catch (error) {
    if (error instanceof ServiceError) {
      reply(400, { __type: error.type, message: error.message }, { 'x-amzn-errortype': error.type });
    } else {
      reply(500, { __type: 'InternalServerError', message: (error as Error).message });
    }
  }
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.once('error', reject);
  });
}

function startExecution(
  machines: Map<string, LoadedStateMachine>,
  executions: Map<string, Execution>,
  request: { stateMachineArn?: string; name?: string; input?: string },
) {
  const loaded = machines.get(String(request.stateMachineArn));
  if (!loaded)
    throw new ServiceError('StateMachineDoesNotExist', `State Machine Does Not Exist: '${request.stateMachineArn}'`);
  const name = request.name ?? randomUUID();
  if (!EXECUTION_NAME.test(name)) throw new ServiceError('InvalidName', `Invalid Name: '${name}'`);
  const input = request.input ?? '{}';
  if (Buffer.byteLength(input) > MAX_INPUT_BYTES) {
    throw new ServiceError('InvalidExecutionInput', 'Execution input exceeds the 256 KiB quota');
  }
  let parsedInput: unknown;
  try {
    parsedInput = JSON.parse(input);
  } catch {
    throw new ServiceError('InvalidExecutionInput', `Invalid State Machine Execution Input: '${input}'`);
  }

  const executionArn = `${loaded.options.arn.replace(':stateMachine:', ':execution:')}:${name}`;
  const existing = executions.get(executionArn);
  if (existing) {
    // StartExecution is idempotent for the same name and input while the execution runs.
    if (existing.status === 'RUNNING' && existing.input === input) {
      return { executionArn, startDate: epochSeconds(existing.startDate) };
    }
    throw new ServiceError('ExecutionAlreadyExists', `Execution Already Exists: '${executionArn}'`);
  }

  const { options } = loaded;
  const startDate = new Date();
  const run = loaded.machine.run(parsedInput as never, {
    overrides: {
      taskResourceLocalHandlers: loaded.taskHandlersByState as never,
      waitTimeOverrides: options.waitTimeOverridesMs,
      retryIntervalOverrides: options.retryIntervalOverridesMs,
    },
    context: {
      Execution: { Id: executionArn, Name: name, StartTime: startDate.toISOString() },
      StateMachine: { Id: options.arn, Name: options.arn.split(':').pop() },
    },
  });
  const execution: Execution = {
    executionArn,
    stateMachineArn: options.arn,
    name,
    status: 'RUNNING',
    startDate,
    input,
    abort: run.abort,
  };
  executions.set(executionArn, execution);
  // Both branches are attached at once: a failing run never becomes an unhandled rejection.
  run.result.then(
    (output) => finish(execution, { status: 'SUCCEEDED', output: JSON.stringify(output) }),
    (error) => finish(execution, outcomeOfFailure(error)),
  );
  return { executionArn, startDate: epochSeconds(startDate) };
}

function outcomeOfFailure(error: unknown): Pick<Execution, 'status' | 'error' | 'cause'> {
  if (error instanceof ExecutionAbortedError) return { status: 'ABORTED' };
  if (error instanceof ExecutionTimeoutError) {
    return { status: 'TIMED_OUT', error: 'States.Timeout', cause: 'The execution timed out' };
  }
  // ExecutionError wraps what failed the machine: a task error, a Fail state, States.Runtime.
  const failure = error instanceof ExecutionError && error.cause instanceof Error ? error.cause : (error as Error);
  return { status: 'FAILED', error: failure?.name ?? 'States.Runtime', cause: failure?.message ?? String(error) };
}

/** Records the final state once; later outcomes (e.g. the run settling after a stop) are ignored. */
function finish(execution: Execution, outcome: Partial<Execution> & { status: ExecutionStatus }): Execution {
  if (execution.status === 'RUNNING') Object.assign(execution, outcome, { stopDate: new Date() });
  return execution;
}

function findExecution(executions: Map<string, Execution>, executionArn: unknown): Execution {
  if (typeof executionArn !== 'string' || !executionArn.includes(':execution:')) {
    throw new ServiceError('InvalidArn', `Invalid Arn: '${String(executionArn)}'`);
  }
  const execution = executions.get(executionArn);
  if (!execution) throw new ServiceError('ExecutionDoesNotExist', `Execution Does Not Exist: '${executionArn}'`);
  return execution;
}

function describeExecution(execution: Execution) {
  return {
    executionArn: execution.executionArn,
    stateMachineArn: execution.stateMachineArn,
    name: execution.name,
    status: execution.status,
    startDate: epochSeconds(execution.startDate),
    ...(execution.stopDate && { stopDate: epochSeconds(execution.stopDate) }),
    input: execution.input,
    inputDetails: { included: true },
    ...(execution.output !== undefined && { output: execution.output, outputDetails: { included: true } }),
    ...(execution.error !== undefined && { error: execution.error }),
    ...(execution.cause !== undefined && { cause: execution.cause }),
  };
}

function stopExecution(execution: Execution, request: { error?: string; cause?: string }) {
  if (execution.status === 'RUNNING') {
    finish(execution, { status: 'ABORTED', error: request.error, cause: request.cause });
    execution.abort();
  }
  return { stopDate: epochSeconds(execution.stopDate ?? new Date()) };
}

function listExecutions(
  machines: Map<string, LoadedStateMachine>,
  executions: Map<string, Execution>,
  request: { stateMachineArn?: string; statusFilter?: ExecutionStatus; maxResults?: number; nextToken?: string },
) {
  if (!machines.has(String(request.stateMachineArn))) {
    throw new ServiceError('StateMachineDoesNotExist', `State Machine Does Not Exist: '${request.stateMachineArn}'`);
  }
  const matching = [...executions.values()]
    .filter((e) => e.stateMachineArn === request.stateMachineArn)
    .filter((e) => !request.statusFilter || e.status === request.statusFilter)
    .reverse(); // newest first, as the service lists them
  const offset = request.nextToken ? Number(request.nextToken) : 0;
  if (!Number.isInteger(offset) || offset < 0) throw new ServiceError('InvalidToken', 'Invalid Token');
  const pageSize = Math.min(request.maxResults || 100, 1000);
  const page = matching.slice(offset, offset + pageSize);
  return {
    executions: page.map((e) => ({
      executionArn: e.executionArn,
      stateMachineArn: e.stateMachineArn,
      name: e.name,
      status: e.status,
      startDate: epochSeconds(e.startDate),
      ...(e.stopDate && { stopDate: epochSeconds(e.stopDate) }),
    })),
    ...(offset + pageSize < matching.length && { nextToken: String(offset + pageSize) }),
  };
}

/** AWS JSON 1.0 timestamps are epoch seconds. */
function epochSeconds(date: Date): number {
  return date.getTime() / 1000;
}
