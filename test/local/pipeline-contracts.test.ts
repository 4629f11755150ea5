/**
 * The pipelines' contracts (decision 188): the module import state machine's input and task
 * state (shared/workflow/module-import-contract.ts), the site export and import loops'
 * (site-transfer-contract.ts), and the S3 event notification the media
 * processor reads (shared/storage/s3-event.ts). Each is checked where it arrives, before any I/O,
 * so these run without a stack.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { handler as inspectPackage } from '../../functions/pipeline/inspect-package.ts';
import { importTask } from '../../functions/pipeline/import-task.ts';
import { moduleImportDefinition } from '../../functions/pipeline/module-import.definition.ts';
import { handler as processMedia } from '../../functions/pipeline/process-media.ts';
import { PipelineErrorName } from '../../functions/pipeline/errors.ts';
import { objectCreatedEvent } from '../../infra/local/s3-events.ts';
import { s3EventSchema } from '../../shared/storage/s3-event.ts';
import { moduleImportStateSchema } from '../../shared/workflow/module-import-contract.ts';
import { handler as siteExportStep } from '../../functions/pipeline/site-export-step.ts';
import { handler as siteImportFailed } from '../../functions/pipeline/site-import-failed.ts';
import { siteExportDefinition, siteImportDefinition } from '../../functions/pipeline/site-transfer.definition.ts';
import {
  siteExportStateSchema,
  siteImportInputSchema,
  siteImportStateSchema,
} from '../../shared/workflow/site-transfer-contract.ts';

const validInput = { importid: 7, moduleid: 3, bucket: 'modules', key: 'packages/7.zip', source: 'upload' };

/** Every `$.field` path a state of the definition reads or writes, by its first field. */
function pathsOf(value: unknown, found = new Set<string>()): Set<string> {
  if (typeof value === 'string' && value.startsWith('$.')) found.add(value.slice(2).split('.')[0]!);
  else if (value && typeof value === 'object') for (const inner of Object.values(value)) pathsOf(inner, found);
  return found;
}

describe('module import contract', () => {
  it('a task refuses an input that breaks the contract, naming the field, before touching anything', async () => {
    const refused = await inspectPackage({ ...validInput, importid: 'seven', source: 'ftp' }).catch((error) => error);
    expect(refused.name).toBe(PipelineErrorName.InvalidInput);
    expect(refused.message).toMatch(/importid/);
    expect(refused.message).toMatch(/source/);
  });

  it('a task whose result breaks the contract fails itself, not the next task', async () => {
    const broken = importTask('Broken', async (state) => ({ ...state, size: 'large' as unknown as number }));
    const refused = await broken(validInput).catch((error) => error);
    expect(refused.name).toBe(PipelineErrorName.InvalidInput);
    expect(refused.message).toMatch(/Broken returned a state that breaks the contract \(size/);
    const passing = importTask('Passing', async (state) => ({ ...state, size: 10 }));
    await expect(passing(validInput)).resolves.toMatchObject({ ...validInput, size: 10 });
  });

  it('the definition reads and writes only fields of the contract (and the Lambda Payload)', () => {
    const fields = new Set(Object.keys(moduleImportStateSchema.shape));
    const unknown = [...pathsOf(moduleImportDefinition)].filter((field) => field !== 'Payload' && !fields.has(field));
    expect(unknown).toEqual([]);
    expect(moduleImportDefinition.States.ReceivePackage.Choices[0]).toMatchObject({
      Variable: '$.source',
      StringEquals: 'url',
    });
  });
});

describe('site export and import contract', () => {
  it('a step refuses an input that breaks the contract, naming the field, before touching anything', async () => {
    const refused = await siteExportStep({ exportid: 'seven' }).catch((error) => error);
    expect(refused.name).toBe(PipelineErrorName.InvalidInput);
    expect(refused.message).toMatch(/ExportStep: an input that breaks the contract \(exportid/);
    const failed = await siteImportFailed({ importid: 3, attempt: 0 }).catch((error) => error);
    expect(failed.name).toBe(PipelineErrorName.InvalidInput);
    expect(failed.message).toMatch(/attempt/);
  });

  it('an import started before attempts were numbered is attempt 1', () => {
    expect(siteImportInputSchema.parse({ importid: 4 })).toEqual({ importid: 4, attempt: 1 });
  });

  it('each definition reads and writes only fields of its contract (and the Lambda Payload)', () => {
    for (const [definition, schema] of [
      [siteExportDefinition, siteExportStateSchema],
      [siteImportDefinition, siteImportStateSchema],
    ] as const) {
      const fields = new Set(Object.keys(schema.shape));
      const unknown = [...pathsOf(definition)].filter((field) => field !== 'Payload' && !fields.has(field));
      expect(unknown).toEqual([]);
      expect(JSON.stringify(definition)).toContain('"Variable":"$.done"');
    }
  });
});

describe('S3 event contract', () => {
  it('the recorded S3 event and the local emulator events fit it', () => {
    const recorded = JSON.parse(readFileSync('events/s3/media-original-created.json', 'utf8'));
    expect(s3EventSchema.safeParse(recorded).success).toBe(true);
    const local = objectCreatedEvent(
      {
        bucket: 'media',
        key: 'originals/12/a photo.jpg',
        size: 5,
        eTag: '"abc"',
        eventName: 'ObjectCreated:Put',
        time: new Date(),
        sourceIp: '127.0.0.1',
      },
      { region: 'us-east-1', configurationId: 'ProcessMedia' },
    );
    expect(s3EventSchema.parse(local).Records?.[0]?.s3.object.size).toBe(5);
  });

  it('the media processor refuses a malformed event with what is wrong, and ignores the S3 test event', async () => {
    const malformed = { Records: [{ eventName: 'ObjectCreated:Put', s3: { bucket: {}, object: { key: 'x' } } }] };
    await expect(processMedia(malformed as never)).rejects.toThrow(/Not an S3 event notification[\s\S]*bucket/);
    await expect(
      processMedia({ Service: 'Amazon S3', Event: 's3:TestEvent', Bucket: 'media' } as never),
    ).resolves.toBeUndefined();
  });
});
