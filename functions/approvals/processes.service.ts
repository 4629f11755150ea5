/**
 * Approval processes (1 to 10 ordered stages, each an approver team and a quorum), their
 * attachment to wiki pages, and the processes that govern a guide. Admins create, change and
 * attach processes; every change is on the audit trail (the process's chain and the Admin's;
 * attachments also on the page's). A change to a process applies to requests made after it:
 * a request keeps the stages it was made with.
 */
import { auditSubject } from '../../shared/db/audit.ts';
import { ConflictError, NotFoundError, ValidationError, type FieldProblem } from '../../shared/domain/errors.ts';
import type { StageRule } from '../../shared/domain/approval-flow.ts';
import { actorFields, auditActor, type Caller } from '../../shared/domain/caller.ts';
import { assertCanViewGuide } from '../../shared/content/guide-access.ts';
import { requireDocument } from '../../shared/content/documents.ts';
import { appendAudit } from '../../shared/db/audit.ts';
import { nextId } from '../../shared/db/counters.ts';
import { nowSeconds } from '../../shared/clock.ts';
import { searchIds } from '../../shared/db/search-index.ts';
import { TransactionConditionFailed } from '../../shared/db/transactions.ts';
import { labelsIn, retryOnLostRace } from '../../shared/db/retry.ts';
import { AUDIT_CHAIN_LABELS } from '../../shared/db/audit.ts';
import { getTeams } from '../../shared/db/entities/team.ts';
import { getWiki } from '../../shared/db/entities/wiki.ts';
import { getOpenRequest } from '../../shared/db/entities/approval-request.ts';
import {
  attachmentDeleteWrite,
  attachmentPutWrites,
  getAttachment,
  getProcess,
  getProcesses,
  listProcesses,
  processCreateWrites,
  processReplaceWrites,
  processSearchTokens,
  type ApprovalAttachmentRecord,
  type ApprovalProcessRecord,
} from '../../shared/db/entities/approval-process.ts';
import { attachmentView, processView, type ProcessView } from '../../shared/views/approval-views.ts';
import { governingProcesses } from '../../shared/content/governing-processes.ts';
import type { Page } from '../../shared/db/paging.ts';
import type { ProcessCreateInput, ProcessPatchInput, StageInput } from './approvals.schemas.ts';

/** Process views with their teams' names, read in one batch. */
export async function processViews(processes: ApprovalProcessRecord[]): Promise<ProcessView[]> {
  const teamids = [...new Set(processes.flatMap((process) => process.stages.map((stage) => stage.teamid)))];
  const names = new Map((await getTeams(teamids)).map((team) => [team.teamid, team.name]));
  return processes.map((process) => processView(process, names));
}

export async function requireProcess(id: number, consistent = false): Promise<ApprovalProcessRecord> {
  const process = await getProcess(id, { consistent });
  if (!process) throw new NotFoundError(`No approval process with approval_processid ${id}`);
  return process;
}

/** Stages as stored: each team must exist and have at least `quorum` members. */
async function validStages(stages: StageInput[]): Promise<StageRule[]> {
  const teams = new Map(
    (await getTeams([...new Set(stages.map((stage) => stage.teamid))])).map((team) => [team.teamid, team]),
  );
  const problems: FieldProblem[] = [];
  stages.forEach((stage, index) => {
    const team = teams.get(stage.teamid);
    if (!team)
      problems.push({
        field: `stages.${index}.teamid`,
        code: 'not_found',
        message: `No team with teamid ${stage.teamid}`,
      });
    else if (stage.quorum > team.member_count) {
      problems.push({
        field: `stages.${index}.quorum`,
        code: 'exceeds_team',
        message:
          `Stage ${index + 1} needs ${stage.quorum} approvals but team ${team.name} has ${team.member_count} ` +
          `member(s)`,
      });
    }
  });
  if (problems.length > 0) throw new ValidationError(problems.map((problem) => problem.message).join('; '), problems);
  return stages.map((stage, index) => ({
    name: stage.name?.trim() || `Stage ${index + 1}`,
    teamid: stage.teamid,
    quorum: stage.quorum,
  }));
}

export async function create(caller: Caller, input: ProcessCreateInput) {
  const stages = await validStages(input.stages);
  const now = nowSeconds();
  const process: ApprovalProcessRecord = {
    approval_processid: await nextId('approval_process'),
    name: input.name,
    description: input.description ?? '',
    stages,
    ...actorFields('created_by', caller),
    created_date: now,
    ...actorFields('modified_by', caller),
    modified_date: now,
    version: 1,
    search_tokens: processSearchTokens(input.name),
  };
  await appendAudit(
    {
      action: 'approval.process_created',
      ...auditActor(caller),
      subjects: [auditSubject.approvalProcess(process.approval_processid), auditSubject.actor(caller)],
      details: {
        approval_processid: process.approval_processid,
        new: { name: process.name, description: process.description, stages },
      },
    },
    processCreateWrites(process),
  );
  return (await processViews([process]))[0];
}

export async function patch(caller: Caller, id: number, input: ProcessPatchInput) {
  await requireProcess(id);
  if (input.name === undefined && input.description === undefined && input.stages === undefined) {
    throw ValidationError.field('body', 'missing_field', 'Give at least one of name, description, stages');
  }
  const stages = input.stages ? await validStages(input.stages) : undefined;
  const after = await retryOnLostRace(
    // Another Admin changing it meanwhile makes a lost race: these fields then apply to the fresh process.
    async () => {
      const before = await requireProcess(id, true);
      const after: ApprovalProcessRecord = {
        ...before,
        name: input.name ?? before.name,
        description: input.description ?? before.description,
        stages: stages ?? before.stages,
        ...actorFields('modified_by', caller),
        modified_date: nowSeconds(),
        version: before.version + 1,
        search_tokens: processSearchTokens(input.name ?? before.name),
      };
      await appendAudit(
        {
          action: 'approval.process_changed',
          ...auditActor(caller),
          subjects: [auditSubject.approvalProcess(id), auditSubject.actor(caller)],
          details: {
            approval_processid: id,
            old: { name: before.name, description: before.description, stages: before.stages },
            new: { name: after.name, description: after.description, stages: after.stages },
          },
        },
        processReplaceWrites(before, after),
      );
      return after;
    },
    {
      attempts: 5,
      raceLabels: labelsIn('process', ...AUDIT_CHAIN_LABELS),
      onExhausted: async () => {
        throw new ConflictError(
          'The process kept changing; try again',
          (await processViews([await requireProcess(id, true)]))[0],
        );
      },
    },
  );
  return (await processViews([after]))[0];
}

export async function get(id: number) {
  return (await processViews([await requireProcess(id)]))[0];
}

export async function list(page: Page) {
  return { processes: await processViews(await listProcesses(page)) };
}

export async function search(phrase: string, page: Page) {
  const ids = await searchIds('PROCESS', phrase, page.limit, page.offset);
  return { processes: await processViews(await getProcesses(ids)) };
}

/** PUT /approvals/{wikiid}/{approval_processid}: attaches (or replaces) the page's process. */
export async function attach(caller: Caller, wikiid: number, approvalProcessid: number) {
  const [wiki, process, previous] = await Promise.all([
    getWiki(wikiid),
    requireProcess(approvalProcessid),
    getAttachment(wikiid),
  ]);
  if (!wiki) throw new NotFoundError(`No wiki page with wikiid ${wikiid}`);
  const attachment: ApprovalAttachmentRecord = {
    wikiid,
    approval_processid: approvalProcessid,
    ...actorFields('attached_by', caller),
    attached_date: nowSeconds(),
  };
  try {
    await appendAudit(
      {
        action: 'approval.process_attached',
        ...auditActor(caller),
        subjects: [
          auditSubject.document('wiki', wikiid),
          auditSubject.approvalProcess(approvalProcessid),
          auditSubject.actor(caller),
        ],
        details: {
          wikiid,
          old_approval_processid: previous?.approval_processid ?? null,
          new_approval_processid: approvalProcessid,
        },
      },
      attachmentPutWrites(attachment),
    );
  } catch (error) {
    if (error instanceof TransactionConditionFailed && error.failedLabels.includes('process'))
      throw new NotFoundError(`No approval process with approval_processid ${approvalProcessid}`);
    throw error;
  }
  return attachmentView(attachment, (await processViews([process]))[0]);
}

/** DELETE /approvals/{wikiid}: the page no longer has a process of its own (404 if it had none). */
export async function detach(caller: Caller, wikiid: number): Promise<void> {
  const attachment = await getAttachment(wikiid);
  if (!attachment) throw new NotFoundError(`No approval process is attached to wiki page ${wikiid}`);
  try {
    await appendAudit(
      {
        action: 'approval.process_detached',
        ...auditActor(caller),
        subjects: [
          auditSubject.document('wiki', wikiid),
          auditSubject.approvalProcess(attachment.approval_processid),
          auditSubject.actor(caller),
        ],
        details: { wikiid, old_approval_processid: attachment.approval_processid, new_approval_processid: null },
      },
      [attachmentDeleteWrite(wikiid)],
    );
  } catch (error) {
    if (error instanceof TransactionConditionFailed && error.failedLabels.includes('attachment'))
      throw new NotFoundError(`No approval process is attached to wiki page ${wikiid}`);
    throw error;
  }
}

/** GET /guides/{guideid}/approvalProcesses: the processes of its category chain, nearest first. */
export async function ofGuide(caller: Caller, guideid: number) {
  await assertCanViewGuide(caller, guideid);
  const document = await requireDocument('guide', guideid);
  const [governing, open] = await Promise.all([governingProcesses(document), getOpenRequest('guide', guideid)]);
  const views = await processViews(governing.map((entry) => entry.process));
  return {
    guideid,
    approval_processes: governing.map((entry, index) => ({
      ...views[index],
      attached_to: { wikiid: entry.page.wikiid, namespace: entry.page.namespace, title: entry.page.title },
      effective: index === 0,
    })),
    open_request: open ?? null,
  };
}
