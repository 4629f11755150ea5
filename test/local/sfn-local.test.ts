/**
 * The local Step Functions endpoint itself, on small definitions: the task wiring (direct
 * Lambda ARNs and lambda:invoke, inside Map and Parallel bodies), Wait overrides, failures
 * that must not crash the process, and the API semantics the SDK relies on.
 */
import {
  DescribeExecutionCommand,
  type DescribeExecutionCommandOutput,
  ListExecutionsCommand,
  SFNClient,
  StartExecutionCommand,
} from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStepFunctionsEndpoint, type LocalStepFunctions } from '../../infra/local/sfn-local.ts';

const ARN = 'arn:aws:states:us-east-1:000000000000:stateMachine:';
const lambdaInvoke = (substitution: string, next: object) => ({
  Type: 'Task',
  Resource: 'arn:aws:states:::lambda:invoke',
  Parameters: { FunctionName: `\${${substitution}}`, 'Payload.$': '$' },
  OutputPath: '$.Payload',
  ...next,
});

/** Parallel (direct Lambda ARN) -> Wait (300 s, overridden) -> Map (lambda:invoke). */
const fanOutDefinition = {
  StartAt: 'Prepare',
  States: {
    Prepare: {
      Type: 'Parallel',
      Branches: [
        // biome-ignore lint/suspicious/noTemplateCurlyInString: an ASL definition substitution
        { StartAt: 'Double', States: { Double: { Type: 'Task', Resource: '${DoubleFunctionArn}', End: true } } },
      ],
      OutputPath: '$[0]',
      Next: 'Cooldown',
    },
    Cooldown: { Type: 'Wait', Seconds: 300, Next: 'EachItem' },
    EachItem: {
      Type: 'Map',
      ItemsPath: '$.items',
      MaxConcurrency: 2,
      ItemProcessor: {
        ProcessorConfig: { Mode: 'INLINE' },
        StartAt: 'Label',
        States: { Label: lambdaInvoke('LabelFunctionArn', { End: true }) },
      },
      ResultPath: '$.labels',
      End: true,
    },
  },
};

const failingDefinition = {
  StartAt: 'Explode',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: an ASL definition substitution
  States: { Explode: { Type: 'Task', Resource: '${ExplodeFunctionArn}', End: true } },
};

const waitingDefinition = { StartAt: 'Hold', States: { Hold: { Type: 'Wait', Seconds: 300, End: true } } };

const unhandledRejections: unknown[] = [];
const onUnhandledRejection = (reason: unknown) => unhandledRejections.push(reason);

let endpoint: LocalStepFunctions;
let sfn: SFNClient;

beforeAll(async () => {
  process.on('unhandledRejection', onUnhandledRejection);
  endpoint = await startStepFunctionsEndpoint({
    stateMachines: [
      {
        arn: `${ARN}fan-out`,
        definition: fanOutDefinition,
        substitutions: {},
        taskHandlers: {
          DoubleFunctionArn: async (input: { items: number[] }) => ({ items: input.items.map((n) => n * 2) }),
          LabelFunctionArn: async (n: number) => `item-${n}`,
        },
        waitTimeOverridesMs: { Cooldown: 0 },
      },
      {
        arn: `${ARN}failing`,
        definition: failingDefinition,
        substitutions: {},
        taskHandlers: {
          ExplodeFunctionArn: (input: { throwString?: boolean }) => {
            // Deliberately not async: a synchronous throw must fail the execution too.
            if (input.throwString) throw 'plain string';
            throw new RangeError('out of range');
          },
        } as never,
      },
      { arn: `${ARN}waiting`, definition: waitingDefinition, substitutions: {}, taskHandlers: {} },
    ],
  });
  sfn = new SFNClient({
    endpoint: endpoint.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
});

afterAll(async () => {
  process.off('unhandledRejection', onUnhandledRejection);
  sfn?.destroy();
  await endpoint?.close();
});

async function run(machine: string, input: unknown, name?: string): Promise<DescribeExecutionCommandOutput> {
  const { executionArn } = await sfn.send(
    new StartExecutionCommand({ stateMachineArn: `${ARN}${machine}`, input: JSON.stringify(input), name }),
  );
  for (let polls = 0; polls < 500; polls++) {
    const execution = await sfn.send(new DescribeExecutionCommand({ executionArn }));
    if (execution.status !== 'RUNNING') return execution;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error('execution did not finish');
}

describe('local Step Functions endpoint', () => {
  it('runs tasks inside Parallel (direct ARN) and Map (lambda:invoke), skipping overridden Waits', async () => {
    const execution = await run('fan-out', { items: [1, 2, 3] });

    expect(execution.status).toBe('SUCCEEDED');
    expect(JSON.parse(execution.output!)).toEqual({ items: [2, 4, 6], labels: ['item-2', 'item-4', 'item-6'] });
  });

  it('turns handler errors, thrown any way, into FAILED executions without unhandled rejections', async () => {
    const thrownError = await run('failing', {});
    const thrownString = await run('failing', { throwString: true });

    expect(thrownError).toMatchObject({ status: 'FAILED', error: 'RangeError' });
    expect(JSON.parse(thrownError.cause!)).toMatchObject({ errorType: 'RangeError', errorMessage: 'out of range' });
    expect(thrownString).toMatchObject({ status: 'FAILED', error: 'Error' });
    expect(unhandledRejections).toEqual([]);
  });

  it('names executions, is idempotent for a running duplicate, refuses a finished one', async () => {
    const execution = await run('fan-out', { items: [] }, 'import-42');
    expect(execution.executionArn).toBe('arn:aws:states:us-east-1:000000000000:execution:fan-out:import-42');
    await expect(
      sfn.send(
        new StartExecutionCommand({ stateMachineArn: `${ARN}fan-out`, name: 'import-42', input: '{"items":[]}' }),
      ),
    ).rejects.toMatchObject({ name: 'ExecutionAlreadyExists' });

    // Still waiting (300 s, not overridden); endpoint.close() aborts it.
    const start = (input: string) =>
      sfn.send(new StartExecutionCommand({ stateMachineArn: `${ARN}waiting`, name: 'hold-1', input }));
    const first = await start('{"a":1}');
    const again = await start('{"a":1}');
    expect(again.executionArn).toBe(first.executionArn);
    await expect(start('{"a":2}')).rejects.toMatchObject({ name: 'ExecutionAlreadyExists' });
  });

  it('lists executions newest first, filtered by status', async () => {
    const listed = await sfn.send(
      new ListExecutionsCommand({ stateMachineArn: `${ARN}failing`, statusFilter: 'FAILED' }),
    );

    expect(listed.executions?.length).toBeGreaterThanOrEqual(2);
    expect(listed.executions?.every((e) => e.status === 'FAILED' && e.stopDate instanceof Date)).toBe(true);
  });

  it("answers unknown machines and executions with the service's error names", async () => {
    await expect(
      sfn.send(new StartExecutionCommand({ stateMachineArn: `${ARN}nope`, input: '{}' })),
    ).rejects.toMatchObject({ name: 'StateMachineDoesNotExist' });
    await expect(
      sfn.send(new StartExecutionCommand({ stateMachineArn: `${ARN}fan-out`, input: 'not json' })),
    ).rejects.toMatchObject({ name: 'InvalidExecutionInput' });
    await expect(
      sfn.send(
        new DescribeExecutionCommand({ executionArn: 'arn:aws:states:us-east-1:000000000000:execution:fan-out:nope' }),
      ),
    ).rejects.toMatchObject({ name: 'ExecutionDoesNotExist' });
  });

  it('refuses, at start, definitions it cannot run faithfully', async () => {
    await expect(
      startStepFunctionsEndpoint({
        stateMachines: [{ arn: `${ARN}x`, definition: failingDefinition, substitutions: {}, taskHandlers: {} }],
      }),
    ).rejects.toThrow('Definition placeholders without a value: ExplodeFunctionArn');

    const dynamoTask = {
      StartAt: 'Save',
      States: { Save: { Type: 'Task', Resource: 'arn:aws:states:::dynamodb:putItem', Parameters: {}, End: true } },
    };
    await expect(
      startStepFunctionsEndpoint({
        stateMachines: [{ arn: `${ARN}y`, definition: dynamoTask, substitutions: {}, taskHandlers: {} }],
      }),
    ).rejects.toThrow('has no local implementation');
  });
});
