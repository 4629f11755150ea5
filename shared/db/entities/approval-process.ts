/**
 * Approval process: pk APPROVAL_PROCESS#<id> / sk PROCESS, listed through gsi1
 * (APPROVAL_PROCESSES, padded id) and found by name words through the PROCESS search
 * partition. Its stages (1 to 10: name, approver teamid, quorum) are a list on the item.
 * Changes are guarded by `version`.
 * Attachment of a process to a wiki page: pk APPROVAL_ATTACHMENT#WIKI#<wikiid> / sk ATTACHMENT
 * (one per page; a guide inherits the processes of its category page and that page's
 * ancestors).
 */
import { tableName } from '../client.ts';
import { getItem } from '../items.ts';
import { padId } from '../keys.ts';
import { recordFrom, recordsOf, type StoredRecord } from '../stored-item.ts';
import { INDEXES } from '../table.ts';
import { queryPage } from '../paging.ts';
import { batchGetInOrder } from '../batch.ts';
import { searchTokenWrites } from '../search-index.ts';
import { searchTokens } from '../../domain/search-tokens.ts';
import type { LabelledWrite } from '../transactions.ts';
import * as z from 'zod/mini';
import { serviceAuthorSchema } from './api-token.ts';

/** The search words a process is stored with: at most 20 of its name's. */
export function processSearchTokens(name: string): string[] {
  return searchTokens(name).slice(0, 20);
}

/** An approval stage as processes and requests keep it: the approver team and its quorum. */
export const approvalStageSchema = z.object({ name: z.string(), teamid: z.int(), quorum: z.int() });

export const approvalProcessItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.literal('PROCESS'),
  entity: z.literal('ApprovalProcess'),
  gsi1pk: z.literal('APPROVAL_PROCESSES'),
  gsi1sk: z.string(),
  approval_processid: z.int().check(z.positive()),
  name: z.string(),
  description: z.string(),
  stages: z.array(approvalStageSchema),
  /** null for a site API token, named by created_by_token (decision 260); 0: a token's, before it. */
  created_by: z.nullable(z.int()),
  created_by_token: z.optional(serviceAuthorSchema),
  created_date: z.number(),
  modified_by: z.nullable(z.int()),
  modified_by_token: z.optional(serviceAuthorSchema),
  modified_date: z.number(),
  version: z.int(),
  search_tokens: z.array(z.string()),
});

export type ApprovalProcessRecord = StoredRecord<typeof approvalProcessItemSchema>;

export const approvalAttachmentItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.literal('ATTACHMENT'),
  entity: z.literal('ApprovalAttachment'),
  wikiid: z.int().check(z.positive()),
  approval_processid: z.int().check(z.positive()),
  attached_by: z.nullable(z.int()),
  attached_by_token: z.optional(serviceAuthorSchema),
  attached_date: z.number(),
});

export type ApprovalAttachmentRecord = StoredRecord<typeof approvalAttachmentItemSchema>;

export function processKey(id: number) {
  return { pk: `APPROVAL_PROCESS#${id}`, sk: 'PROCESS' } as const;
}

export function attachmentKey(wikiid: number) {
  return { pk: `APPROVAL_ATTACHMENT#WIKI#${wikiid}`, sk: 'ATTACHMENT' } as const;
}

const processFromItem = recordsOf(approvalProcessItemSchema);
const attachmentFromItem = recordsOf(approvalAttachmentItemSchema);

export function processCreateWrites(process: ApprovalProcessRecord): LabelledWrite[] {
  return [
    {
      label: 'process',
      item: {
        Put: {
          TableName: tableName(),
          Item: {
            ...processKey(process.approval_processid),
            entity: 'ApprovalProcess',
            [INDEXES.gsi1.pk]: 'APPROVAL_PROCESSES',
            [INDEXES.gsi1.sk]: padId(process.approval_processid),
            ...process,
          } satisfies z.input<typeof approvalProcessItemSchema>,
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    },
    ...searchTokenWrites('PROCESS', process.approval_processid, [], process.search_tokens),
  ];
}

/** Replaces a process read at `before.version` (label `process` fails if it changed since). */
export function processReplaceWrites(before: ApprovalProcessRecord, after: ApprovalProcessRecord): LabelledWrite[] {
  return [
    {
      label: 'process',
      item: {
        Update: {
          TableName: tableName(),
          Key: processKey(after.approval_processid),
          UpdateExpression:
            'SET #name = :name, description = :description, stages = :stages, modified_by = :by, ' +
            'modified_date = :date, version = :next, search_tokens = :tokens' +
            (after.modified_by_token ? ', modified_by_token = :bytoken' : ' REMOVE modified_by_token'),
          ConditionExpression: 'attribute_exists(pk) AND version = :expected',
          ExpressionAttributeNames: { '#name': 'name' },
          ExpressionAttributeValues: {
            ':name': after.name,
            ':description': after.description,
            ':stages': after.stages,
            ':by': after.modified_by,
            ...(after.modified_by_token ? { ':bytoken': after.modified_by_token } : {}),
            ':date': after.modified_date,
            ':next': before.version + 1,
            ':tokens': after.search_tokens,
            ':expected': before.version,
          },
        },
      },
    },
    ...searchTokenWrites('PROCESS', after.approval_processid, before.search_tokens, after.search_tokens),
  ];
}

export async function getProcess(
  id: number,
  options: { consistent?: boolean } = {},
): Promise<ApprovalProcessRecord | undefined> {
  const item = await getItem(processKey(id), { consistent: options.consistent });
  return item ? processFromItem(item) : undefined;
}

/** Processes in the order of the ids asked for; unknown ids are left out. */
export async function getProcesses(ids: number[]): Promise<ApprovalProcessRecord[]> {
  return (await batchGetInOrder([...new Set(ids)].map(processKey))).map(processFromItem);
}

export async function listProcesses(page: { limit: number; offset: number }): Promise<ApprovalProcessRecord[]> {
  const items = await queryPage({ index: INDEXES.gsi1, partition: 'APPROVAL_PROCESSES' }, page);
  return items.map(processFromItem);
}

/** Attaches (or re-attaches) a process to a page; the process must still exist (label `process`). */
export function attachmentPutWrites(attachment: ApprovalAttachmentRecord): LabelledWrite[] {
  return [
    {
      label: 'attachment',
      item: {
        Put: {
          TableName: tableName(),
          Item: {
            ...attachmentKey(attachment.wikiid),
            entity: 'ApprovalAttachment',
            ...attachment,
          } satisfies z.input<typeof approvalAttachmentItemSchema>,
        },
      },
    },
    {
      label: 'process',
      item: {
        ConditionCheck: {
          TableName: tableName(),
          Key: processKey(attachment.approval_processid),
          ConditionExpression: 'attribute_exists(pk)',
        },
      },
    },
  ];
}

/** Detaches whatever process the page has (label `attachment` fails when it has none). */
export function attachmentDeleteWrite(wikiid: number): LabelledWrite {
  return {
    label: 'attachment',
    item: {
      Delete: { TableName: tableName(), Key: attachmentKey(wikiid), ConditionExpression: 'attribute_exists(pk)' },
    },
  };
}

export async function getAttachment(wikiid: number): Promise<ApprovalAttachmentRecord | undefined> {
  const item = await getItem(attachmentKey(wikiid));
  return item ? recordFrom(approvalAttachmentItemSchema, item) : undefined;
}

/** The attachments of several pages (a page and its ancestors), in the order asked for. */
export async function getAttachments(wikiids: number[]): Promise<ApprovalAttachmentRecord[]> {
  const items = await batchGetInOrder([...new Set(wikiids)].map(attachmentKey));
  return items.map(attachmentFromItem);
}
