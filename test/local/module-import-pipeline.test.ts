/**
 * The module-import state machine, exactly as deployed (moduleImportDefinition), run by the
 * local Step Functions endpoint and driven through the real @aws-sdk/client-sfn, with the
 * real inspect-package handler reading the local S3 emulator. The other tasks pass the state
 * through here (they need DynamoDB; test/api/modules*.test.ts runs them all for real): this
 * file is about the machine's wiring, retries, failure path and stops.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import {
  DescribeExecutionCommand,
  type DescribeExecutionCommandOutput,
  StartExecutionCommand,
  StopExecutionCommand,
} from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PipelineError, PipelineErrorName } from '../../functions/pipeline/errors.ts';
import { handler as inspectPackage } from '../../functions/pipeline/inspect-package.ts';
import { moduleImportDefinition, moduleImportTasks } from '../../functions/pipeline/module-import.definition.ts';
import { startS3Emulator, type LocalS3 } from '../../infra/local/s3-emulator.ts';
import { startStepFunctionsEndpoint, type LocalStepFunctions } from '../../infra/local/sfn-local.ts';
import { reloadConfig } from '../../shared/config.ts';
import { resetS3ClientForTests, s3Client } from '../../shared/storage/s3-client.ts';
import { resetSfnClientForTests, sfnClient } from '../../shared/workflow/sfn-client.ts';

const BUCKET = 'stepwise-modules';
const MACHINE = 'arn:aws:states:us-east-1:000000000000:stateMachine:stepwise-module-import';
/** The same definition wired to test doubles, to drive retries and stops deterministically. */
const SCRIPTED_MACHINE = 'arn:aws:states:us-east-1:000000000000:stateMachine:module-import-scripted';

let directory: string;
let s3: LocalS3;
let stepFunctions: LocalStepFunctions;
let scriptedInspect: (input: { bucket: string; key: string }) => Promise<unknown>;
/** The states each execution went through, in order (pass-through tasks record themselves). */
const visited: string[] = [];

const inspectTask = moduleImportTasks.find((task) => task.stateName === 'InspectPackage')!;
/** Every task but InspectPackage passes its input on, noting that it ran. */
function passThroughTasks(): Record<string, (input: any) => Promise<any>> {
  return Object.fromEntries(
    moduleImportTasks
      .filter((task) => task !== inspectTask)
      .map((task) => [
        task.substitution,
        async (input: unknown) => {
          visited.push(task.stateName);
          return input;
        },
      ]),
  );
}

/** Execution input as functions/modules writes it. */
const importInput = (key: string) => ({ importid: 1, moduleid: 1, bucket: BUCKET, key, source: 'upload' });

beforeAll(async () => {
  directory = await mkdtemp(path.join(os.tmpdir(), 'stepwise-pipeline-'));
  s3 = await startS3Emulator({ directory, buckets: [BUCKET] });
  stepFunctions = await startStepFunctionsEndpoint({
    stateMachines: [
      {
        arn: MACHINE,
        definition: moduleImportDefinition,
        substitutions: {},
        taskHandlers: { ...passThroughTasks(), [inspectTask.substitution]: inspectPackage },
      },
      {
        arn: SCRIPTED_MACHINE,
        definition: moduleImportDefinition,
        substitutions: {},
        taskHandlers: { ...passThroughTasks(), [inspectTask.substitution]: (input) => scriptedInspect(input) },
        retryIntervalOverridesMs: { [inspectTask.stateName]: 0 },
      },
    ],
  });
  process.env.S3_ENDPOINT = s3.endpoint;
  process.env.SFN_ENDPOINT = stepFunctions.endpoint;
  reloadConfig();
  resetS3ClientForTests();
  resetSfnClientForTests();
});

afterAll(async () => {
  resetS3ClientForTests();
  resetSfnClientForTests();
  await stepFunctions?.close();
  await s3?.close();
  await rm(directory, { recursive: true, force: true });
});

async function start(stateMachineArn: string, input: unknown): Promise<string> {
  const { executionArn } = await sfnClient().send(
    new StartExecutionCommand({ stateMachineArn, input: JSON.stringify(input) }),
  );
  return executionArn!;
}

async function finished(executionArn: string): Promise<DescribeExecutionCommandOutput> {
  for (let polls = 0; polls < 500; polls++) {
    const execution = await sfnClient().send(new DescribeExecutionCommand({ executionArn }));
    if (execution.status !== 'RUNNING') return execution;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`${executionArn} still RUNNING`);
}

describe('module import pipeline on the local Step Functions endpoint', () => {
  it('runs an uploaded package through every step: SUCCEEDED with its size and type', async () => {
    await s3Client().send(
      new PutObjectCommand({
        Bucket: BUCKET,
        Key: 'imports/course.zip',
        Body: Buffer.alloc(2048),
        ContentType: 'application/zip',
      }),
    );
    visited.length = 0;

    const execution = await finished(await start(MACHINE, importInput('imports/course.zip')));

    expect(execution.status).toBe('SUCCEEDED');
    expect(JSON.parse(execution.output!)).toEqual({
      ...importInput('imports/course.zip'),
      size: 2048,
      contentType: 'application/zip',
    });
    expect(visited).toEqual(['AwaitUpload', 'ValidatePackage', 'ExtractPackage', 'RecordVersion']);
  });

  it('takes the fetch branch for an import by URL', async () => {
    visited.length = 0;
    await finished(
      await start(MACHINE, { ...importInput('imports/course.zip'), source: 'url', url: 'https://example.com/p.zip' }),
    );
    expect(visited[0]).toBe('FetchPackage');
  });

  it("fails with PackageNotFound when the object is missing, through MarkImportFailed, with Lambda's error document as cause", async () => {
    visited.length = 0;
    const execution = await finished(await start(MACHINE, importInput('imports/missing.zip')));

    expect(visited).toEqual(['AwaitUpload', 'MarkImportFailed']);
    expect(execution.status).toBe('FAILED');
    expect(execution.error).toBe('PackageNotFound');
    expect(JSON.parse(execution.cause!)).toMatchObject({
      errorType: 'PackageNotFound',
      errorMessage: `No package at s3://${BUCKET}/imports/missing.zip`,
    });
  });

  it('retries TransientStorageError and then succeeds', async () => {
    let calls = 0;
    scriptedInspect = async (input) => {
      calls++;
      if (calls <= 2) throw new PipelineError(PipelineErrorName.TransientStorage, 'S3 503 SlowDown');
      return { ...input, size: 7, contentType: null };
    };

    const execution = await finished(await start(SCRIPTED_MACHINE, importInput('flaky.zip')));

    expect(execution.status).toBe('SUCCEEDED');
    expect(JSON.parse(execution.output!)).toMatchObject({ size: 7 });
    expect(calls).toBe(3);
  });

  it('does not retry a non-transient error', async () => {
    let calls = 0;
    scriptedInspect = async () => {
      calls++;
      throw new PipelineError(PipelineErrorName.PackageNotFound, 'gone');
    };

    const execution = await finished(await start(SCRIPTED_MACHINE, importInput('gone.zip')));

    expect(execution.status).toBe('FAILED');
    expect(execution.error).toBe('PackageNotFound');
    expect(calls).toBe(1);
  });

  it('StopExecution aborts a running execution', async () => {
    let release!: () => void;
    scriptedInspect = () => new Promise((resolve) => (release = () => resolve({ size: 1 })));

    const executionArn = await start(SCRIPTED_MACHINE, importInput('slow.zip'));
    expect((await sfnClient().send(new DescribeExecutionCommand({ executionArn }))).status).toBe('RUNNING');
    await sfnClient().send(
      new StopExecutionCommand({ executionArn, error: 'Cancelled', cause: 'user cancelled the import' }),
    );

    const execution = await sfnClient().send(new DescribeExecutionCommand({ executionArn }));
    expect(execution).toMatchObject({ status: 'ABORTED', error: 'Cancelled', cause: 'user cancelled the import' });
    expect(execution.stopDate).toBeInstanceOf(Date);
    release();
  });
});
