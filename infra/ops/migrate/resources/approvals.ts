/**
 * Approvals: processes (with their search words), their attachments to wiki pages, and every
 * approval request with its signatures, its document's open-request claim while pending and the
 * approved-revision record once approved. Written through the approval entities' own builders;
 * the request's outbox events are left out (a migrated site must not send them again).
 *
 * Read as an Admin: GET /approvals/processes; GET /guides/{guideid}/approvalProcesses for each
 * guide the guides crawler found (the pages its processes are attached to); and the requests by
 * id, GET /approvals/request/{id} from 1 up: API 2.0 lists only the caller's own requests, but
 * request ids are dense (a counter; requests are never deleted), so the crawler reads on until
 * REQUEST_ID_GAP ids in a row answer 404.
 */
import { itemsOfWrites, SourceError, type CrawlContext, type ResourceCrawler } from '../crawl.ts';
import { isDenied } from './training-common.ts';
import {
  attachmentPutWrites,
  processCreateWrites,
  processSearchTokens,
  type ApprovalAttachmentRecord,
  type ApprovalProcessRecord,
} from '../../../../shared/db/entities/approval-process.ts';
import {
  approvedRevisionWrite,
  requestCreateWrites,
  type ApprovalRequestRecord,
} from '../../../../shared/db/entities/approval-request.ts';
import type { ProcessView, RequestView } from '../../../../shared/views/approval-views.ts';

/** Stored attributes API 2.0 does not hand out, and what the crawler writes instead. */
export const APPROVAL_UNEXPOSED = {
  ApprovalProcess: { version: 'internal optimistic-lock counter: starts again at 1' },
  ApprovalRequest: { version: 'internal optimistic-lock counter: starts again at 1' },
  ApprovalAttachment: {
    attached_by: 'who attached the process is not shown: 0',
    attached_date: "when it was attached is not shown: the process's modified_date",
  },
  ApprovedRevision: { approved_date: "when the approving signature came is not shown: the request's completed_date" },
} as const;

/** Missing request ids in a row after which the crawler stops looking for more. */
export const REQUEST_ID_GAP = 25;

export function processRecordOf(view: ProcessView): ApprovalProcessRecord {
  return {
    approval_processid: view.approval_processid,
    name: view.name,
    description: view.description,
    stages: view.stages.map((stage) => ({ name: stage.name, teamid: stage.teamid, quorum: stage.quorum })),
    created_by: view.created_by,
    created_date: view.created_date,
    modified_by: view.modified_by,
    modified_date: view.modified_date,
    version: 1,
    search_tokens: processSearchTokens(view.name),
  };
}

export function requestRecordOf(view: RequestView): ApprovalRequestRecord {
  return {
    approval_requestid: view.approval_requestid,
    doctype: view.doctype,
    docid: view.docid,
    title: view.title,
    revisionid: view.revisionid,
    revision_hash: view.revision_hash,
    approval_processid: view.approval_processid,
    process_name: view.process_name,
    stages: view.stages.map((stage) => ({ name: stage.name, teamid: stage.teamid, quorum: stage.quorum })),
    status: view.status,
    current_stage: view.current_stage,
    signatures: view.signatures,
    signer_userids: view.signatures.map((signature) => signature.userid),
    requested_by: view.requested_by,
    notes: view.notes,
    created_date: view.created_date,
    completed_date: view.completed_date,
    superseded_by_revisionid: view.superseded_by_revisionid,
    releaseid: view.releaseid,
    version: 1,
  };
}

/** The request item, its open-request claim while pending, its approved-revision record once approved. */
export function requestItems(request: ApprovalRequestRecord): Record<string, unknown>[] {
  const items = itemsOfWrites([
    ...requestCreateWrites(request),
    ...(request.status === 'approved' ? [approvedRevisionWrite(request, request.completed_date!)] : []),
  ]);
  return items.filter(
    (item) => item.entity !== 'OutboxEvent' && (request.status === 'pending' || item.entity !== 'OpenApprovalRequest'),
  );
}

async function crawlProcesses(context: CrawlContext): Promise<Map<number, ApprovalProcessRecord>> {
  const processes = new Map<number, ApprovalProcessRecord>();
  for await (const page of context.api.pages<ProcessView>('/approvals/processes', {
    pageSize: 200,
    itemsOf: (body) => (body as { processes: ProcessView[] }).processes,
  })) {
    for (const view of page) {
      context.sink.idSeen('approval_process', view.approval_processid);
      processes.set(view.approval_processid, processRecordOf(view));
    }
  }
  if (!context.isDone('approval-processes')) {
    await context.sink.items(itemsOfWrites([...processes.values()].flatMap(processCreateWrites)));
    await context.completed('approval-processes');
  }
  return processes;
}

interface GuideProcesses {
  approval_processes: Array<ProcessView & { attached_to: { wikiid: number } }>;
}

/** The pages processes are attached to, as the known guides show them (a page once). */
async function crawlAttachments(context: CrawlContext, processes: Map<number, ApprovalProcessRecord>) {
  if (context.isDone('approval-attachments')) return;
  const attachments = new Map<number, ApprovalAttachmentRecord>();
  for (const guideid of context.known.all('guide')) {
    const shown = await context.api.find<GuideProcesses>(`/guides/${guideid}/approvalProcesses`);
    for (const process of shown?.approval_processes ?? []) {
      const wikiid = process.attached_to.wikiid;
      if (attachments.has(wikiid)) continue;
      attachments.set(wikiid, {
        wikiid,
        approval_processid: process.approval_processid,
        attached_by: 0,
        attached_date: processes.get(process.approval_processid)?.modified_date ?? process.modified_date,
      });
    }
  }
  await context.sink.items(itemsOfWrites([...attachments.values()].flatMap(attachmentPutWrites)));
  await context.completed('approval-attachments');
  if (attachments.size) {
    context.report.unexposed('approval process attachments: who attached them and when', 'not shown');
  }
}

async function crawlRequests(context: CrawlContext): Promise<void> {
  let missing = 0;
  for (let id = 1; missing < REQUEST_ID_GAP; id++) {
    let view: RequestView;
    try {
      view = await context.api.get<RequestView>(`/approvals/request/${id}`);
    } catch (error) {
      if (!(error instanceof SourceError && error.status === 404)) throw error;
      missing++;
      continue;
    }
    missing = 0;
    context.sink.idSeen('approval_request', id);
    const unit = `approval_request:${id}`;
    if (context.isDone(unit)) continue;
    await context.sink.items(requestItems(requestRecordOf(view)));
    await context.completed(unit);
  }
}

export const approvalsCrawler: ResourceCrawler = {
  name: 'approvals',
  after: ['users', 'teams', 'guides', 'wikis'],
  async crawl(context) {
    try {
      const processes = await crawlProcesses(context);
      await crawlAttachments(context, processes);
      await crawlRequests(context);
    } catch (error) {
      if (!isDenied(error)) throw error;
      context.report.unexposed('approvals', 'the source refused them to this account');
      return;
    }
    context.report.unexposed('approval audit records', 'the signed audit trail is not shown');
  },
};
