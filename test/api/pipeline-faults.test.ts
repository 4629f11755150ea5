/**
 * AWS faults in every step of a module import. The real pipeline runs in this process: the
 * deployed definition on the local Step Functions runner, the real task handlers and the
 * modules service, against the shared stack's DynamoDB and S3. aws-sdk-client-mock sits on
 * the project's own S3, DynamoDB and Step Functions clients and passes every call through to
 * the local engines, except the one fault a case injects. Whatever fails, the import must end
 * failed with a reason the API can report and nothing left under its content prefix.
 */
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { DescribeExecutionCommand, StartExecutionCommand, StopExecutionCommand } from '@aws-sdk/client-sfn';
import {
  BatchGetCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactGetCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import * as modules from '../../functions/modules/modules.service.ts';
import { moduleImportDefinition, moduleImportTasks } from '../../functions/pipeline/module-import.definition.ts';
import { startStepFunctionsEndpoint, type LocalStepFunctions } from '../../infra/local/sfn-local.ts';
import { reloadConfig } from '../../shared/config.ts';
import { db } from '../../shared/db/client.ts';
import { getImport, type ModuleImportRecord } from '../../shared/db/entities/module-import.ts';
import type { Caller } from '../../shared/domain/caller.ts';
import { contentPrefix, modulesBucket, packageKey } from '../../shared/storage/module-objects.ts';
import { putObject } from '../../shared/storage/objects.ts';
import { resetS3ClientForTests, s3Client } from '../../shared/storage/s3-client.ts';
import { resetSfnClientForTests, sfnClient } from '../../shared/workflow/sfn-client.ts';
import { importExecutionArn } from '../../shared/workflow/module-import-runs.ts';
import { scorm12Manifest, zip } from '../support/module-packages.ts';
import { servePackage, type PackageServer } from '../support/package-server.ts';

/** A machine of its own, so these executions never meet the shared stack's runner. */
const MACHINE = 'arn:aws:states:us-east-1:000000000000:stateMachine:module-import-faults';
const ADMIN: Caller = { userid: 1, username: 'admin', privileges: ['Admin'], teams: [] };

type CommandClass = new (input: any) => any;
const S3_COMMANDS: CommandClass[] = [
  HeadObjectCommand,
  GetObjectCommand,
  PutObjectCommand,
  CreateMultipartUploadCommand,
  UploadPartCommand,
  CompleteMultipartUploadCommand,
  AbortMultipartUploadCommand,
  ListObjectsV2Command,
  DeleteObjectsCommand,
];
const DDB_COMMANDS: CommandClass[] = [
  GetCommand,
  PutCommand,
  UpdateCommand,
  DeleteCommand,
  QueryCommand,
  BatchGetCommand,
  TransactGetCommand,
  TransactWriteCommand,
];
const SFN_COMMANDS: CommandClass[] = [StartExecutionCommand, DescribeExecutionCommand, StopExecutionCommand];

// Errors as the SDK raises them: a name, the HTTP status, and the fault side.
const sdkError = (name: string, status: number) =>
  Object.assign(new Error(`${name} (injected)`), {
    name,
    $metadata: { httpStatusCode: status },
    $fault: status >= 500 ? 'server' : 'client',
  });
const s3Unavailable = () => sdkError('ServiceUnavailable', 503);
const s3Denied = () => sdkError('AccessDenied', 403);
const dynamoInternal = () => sdkError('InternalServerError', 500);

interface Fault {
  client: 's3' | 'dynamodb' | 'sfn';
  command: CommandClass;
  /** Which calls of that command fail (all by default); `nth` counts the calls of that command. */
  when?: (input: any, nth: number) => boolean;
  error: () => Error;
}

let stepFunctions: LocalStepFunctions;
let packages: PackageServer;
let packageZip: Buffer;
let restoreMocks: Array<() => void> = [];
/** Objects stored under an import's content prefix while a fault was in place. */
let contentWrites = 0;

/** Puts mocks on the three clients: every call passes through to the local engines but the faulty ones. */
function injectFault(fault: Fault): void {
  const counts = new Map<CommandClass, number>();
  const clients = { s3: s3Client(), dynamodb: db(), sfn: sfnClient() } as const;
  const commands = { s3: S3_COMMANDS, dynamodb: DDB_COMMANDS, sfn: SFN_COMMANDS } as const;
  for (const kind of ['s3', 'dynamodb', 'sfn'] as const) {
    const client = clients[kind] as { send: (command: unknown) => Promise<any> };
    const realSend = client.send.bind(client);
    const mock = mockClient(client as never);
    for (const Command of commands[kind]) {
      mock.on(Command as never).callsFake(async (input: any) => {
        if (kind === fault.client && Command === fault.command) {
          const nth = (counts.get(Command) ?? 0) + 1;
          counts.set(Command, nth);
          if (!fault.when || fault.when(input, nth)) throw fault.error();
        }
        const output = await realSend(new Command(input));
        const storesObject = Command === PutObjectCommand || Command === CompleteMultipartUploadCommand;
        if (kind === 's3' && storesObject && String(input.Key).startsWith('content/')) contentWrites++;
        return output;
      });
    }
    restoreMocks.push(() => mock.restore());
  }
}

function removeFaults(): void {
  for (const restore of restoreMocks) restore();
  restoreMocks = [];
}

/** Values an UpdateCommand sets (the entity's transition writes `:v<n>` values). */
const setsValues = (input: any, ...values: unknown[]) =>
  values.every((value) => Object.values(input.ExpressionAttributeValues ?? {}).includes(value));

/** An import's end (complete or failed) is a transaction with its event: values its Update sets. */
const endSets = (input: any, ...values: unknown[]) =>
  (input.TransactItems ?? []).some((item: any) => item.Update && setsValues(item.Update, ...values));

async function executionEnded(importid: number, attempt = 1): Promise<string> {
  for (let polls = 0; polls < 600; polls++) {
    const { status } = await sfnClient().send(
      new DescribeExecutionCommand({ executionArn: importExecutionArn(importid, attempt) }),
    );
    if (status !== 'RUNNING') return status!;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`import ${importid}: execution still running`);
}

async function contentLeft(importid: number): Promise<number> {
  const page = await s3Client().send(
    new ListObjectsV2Command({ Bucket: modulesBucket(), Prefix: contentPrefix(importid) }),
  );
  return page.KeyCount ?? 0;
}

/** Creates an import, injects the fault, runs the import to its end; answers the record and what is left. */
async function importWithFault(
  source: 'upload' | 'url',
  fault: Fault,
): Promise<{ record: ModuleImportRecord; status: string; left: number }> {
  const { importid } = await modules.createImport(ADMIN, { title: 'Faulty package' });
  if (source === 'upload') await putObject(modulesBucket(), packageKey(importid), packageZip, 'application/zip');
  contentWrites = 0;
  injectFault(fault);
  try {
    if (source === 'upload') await modules.startByUpload(ADMIN, importid);
    else await modules.startByUrl(ADMIN, importid, { url: packages.url });
    const status = await executionEnded(importid);
    return { record: (await getImport(importid))!, status, left: await contentLeft(importid) };
  } finally {
    removeFaults();
  }
}

beforeAll(async () => {
  // Several files, so extraction has stored some of them when a later one fails.
  const files: Record<string, string> = {
    'imsmanifest.xml': scorm12Manifest('Faulty package'),
    'index.html': '<h1>Lesson</h1>',
  };
  for (let index = 0; index < 8; index++) files[`assets/part-${index}.js`] = `// part ${index}\n${'x'.repeat(40_000)}`;
  packageZip = await zip(files, { compress: false });
  packages = await servePackage(packageZip);

  process.env.DDB_ENDPOINT = inject('ddbEndpoint');
  process.env.S3_ENDPOINT = inject('s3Endpoint');
  process.env.STEPWISE_FETCH_ALLOW_HOSTS = '127.0.0.1';
  const taskHandlers: Record<string, (input: any) => Promise<any>> = {};
  for (const task of moduleImportTasks)
    taskHandlers[task.substitution] = (await import(/* @vite-ignore */ `../../${task.entry}`))[task.exportName];
  stepFunctions = await startStepFunctionsEndpoint({
    stateMachines: [
      {
        arn: MACHINE,
        definition: moduleImportDefinition,
        substitutions: {},
        taskHandlers,
        // Retries happen (as deployed) but without their back-off.
        retryIntervalOverridesMs: Object.fromEntries(moduleImportTasks.map((task) => [task.stateName, 0])),
      },
    ],
  });
  process.env.SFN_ENDPOINT = stepFunctions.endpoint;
  process.env.MODULE_IMPORT_STATE_MACHINE_ARN = MACHINE;
  reloadConfig();
  resetS3ClientForTests();
  resetSfnClientForTests();
});

afterEach(removeFaults);

afterAll(async () => {
  await stepFunctions?.close();
  await packages?.close();
});

describe('import pipeline under injected AWS faults', () => {
  it('runs clean without a fault (the harness itself passes everything through)', async () => {
    const { record, status, left } = await importWithFault('upload', {
      client: 's3',
      command: HeadObjectCommand,
      when: () => false,
      error: s3Denied,
    });
    expect(status).toBe('SUCCEEDED');
    expect(record).toMatchObject({ status: 'complete', file_count: 10 });
    expect(left).toBe(10);
  });

  const cases: Array<{ name: string; source: 'upload' | 'url'; fault: Fault; code: string; partial?: boolean }> = [
    {
      name: 'FetchPackage: S3 refuses the package upload',
      source: 'url',
      fault: { client: 's3', command: PutObjectCommand, error: s3Denied },
      code: 'internal',
    },
    {
      name: 'AwaitUpload: S3 keeps answering 503',
      source: 'upload',
      fault: { client: 's3', command: HeadObjectCommand, error: s3Unavailable },
      code: 'storage_unavailable',
    },
    {
      name: 'AwaitUpload: DynamoDB fails the progress write',
      source: 'upload',
      fault: {
        client: 'dynamodb',
        command: UpdateCommand,
        when: (input) => setsValues(input, 'validating', 20),
        error: dynamoInternal,
      },
      code: 'storage_unavailable',
    },
    {
      name: 'InspectPackage: S3 denies the HeadObject',
      source: 'upload',
      fault: { client: 's3', command: HeadObjectCommand, when: (_input, nth) => nth >= 2, error: s3Denied },
      code: 'internal',
    },
    {
      name: 'ValidatePackage: S3 ranged reads answer 503',
      source: 'upload',
      fault: { client: 's3', command: GetObjectCommand, error: s3Unavailable },
      code: 'storage_unavailable',
    },
    {
      name: 'ValidatePackage: DynamoDB fails the progress write',
      source: 'upload',
      fault: {
        client: 'dynamodb',
        command: UpdateCommand,
        when: (input) => setsValues(input, 'validating', 22),
        error: dynamoInternal,
      },
      code: 'storage_unavailable',
    },
    {
      name: 'ExtractPackage: S3 fails the uploads after the first files',
      source: 'upload',
      fault: {
        client: 's3',
        command: PutObjectCommand,
        when: (input) => String(input.Key).includes('part-3'),
        error: s3Unavailable,
      },
      code: 'storage_unavailable',
      partial: true,
    },
    {
      name: 'ExtractPackage: DynamoDB fails a progress write mid-extraction',
      source: 'upload',
      fault: {
        client: 'dynamodb',
        command: UpdateCommand,
        when: (input) => setsValues(input, 'extracting') && !setsValues(input, 30),
        error: dynamoInternal,
      },
      code: 'storage_unavailable',
      partial: true,
    },
    {
      name: 'RecordVersion: DynamoDB fails the version write',
      source: 'upload',
      fault: {
        client: 'dynamodb',
        command: TransactWriteCommand,
        when: (input) => endSets(input, 'complete', 'done'),
        error: dynamoInternal,
      },
      code: 'storage_unavailable',
      partial: true,
    },
  ];

  for (const { name, source, fault, code, partial } of cases) {
    it(`${name}: failed as ${code}, partial output removed`, async () => {
      const { record, status, left } = await importWithFault(source, fault);
      expect(status).toBe('FAILED');
      expect(record).toMatchObject({ status: 'failed', error: { code } });
      if (partial) expect(contentWrites).toBeGreaterThan(0);
      expect(left).toBe(0);
    });
  }

  it('MarkImportFailed: DynamoDB fails the failure write too; the next read fails it as interrupted and removes the output', async () => {
    const { record, status, left } = await importWithFault('upload', {
      client: 'dynamodb',
      command: TransactWriteCommand,
      when: (input) => endSets(input, 'complete', 'done') || endSets(input, 'failed'),
      error: dynamoInternal,
    });
    expect(status).toBe('FAILED');
    expect(record.status).toBe('running'); // nobody could record the outcome
    expect(left).toBeGreaterThan(0);

    const progress = await modules.progress(ADMIN, record.importid);
    expect(progress).toMatchObject({ status: 'failed', error: { code: 'interrupted' } });
    expect(await contentLeft(record.importid)).toBe(0);
  });

  it('Step Functions refuses StartExecution: 503, the import is interrupted and starts again', async () => {
    const { importid } = await modules.createImport(ADMIN, { title: 'Never started' });
    injectFault({ client: 'sfn', command: StartExecutionCommand, error: () => sdkError('ServiceUnavailable', 503) });
    await expect(modules.startByUrl(ADMIN, importid, { url: packages.url })).rejects.toMatchObject({
      name: 'ServiceUnavailableError',
    });
    removeFaults();
    expect(await getImport(importid)).toMatchObject({ status: 'failed', error: { code: 'interrupted' } });

    await modules.startByUrl(ADMIN, importid, { url: packages.url });
    expect(await executionEnded(importid, 2)).toBe('SUCCEEDED');
    expect(await getImport(importid)).toMatchObject({ status: 'complete', attempt: 2 });
  });

  it('Step Functions fails DescribeExecution: progress answers what the table says, not an error', async () => {
    const { importid } = await modules.createImport(ADMIN, { title: 'Unobservable' });
    await modules.startByUrl(ADMIN, importid, { url: packages.url });
    injectFault({
      client: 'sfn',
      command: DescribeExecutionCommand,
      error: () => sdkError('ThrottlingException', 400),
    });
    expect((await modules.progress(ADMIN, importid)).importid).toBe(importid);
    removeFaults();
    expect(await executionEnded(importid)).toBe('SUCCEEDED');
  });
});
