/**
 * Which approval processes apply to a document. Processes attach to wiki pages
 * (PUT /approvals/{wikiid}/{approval_processid}). A wiki page is governed by its own attachment,
 * else by the nearest ancestor page's. A guide attaches through its category: the category page
 * and that page's ancestors, nearest first. The nearest attachment is the effective one: it is
 * the process a new approval request follows.
 */
import { MAX_HIERARCHY_DEPTH } from '../domain/wiki-namespaces.ts';
import type { DocumentRef } from './documents.ts';
import { getWiki, getWikiByTitle, type WikiRecord } from '../db/entities/wiki.ts';
import {
  getAttachments,
  getProcesses,
  type ApprovalAttachmentRecord,
  type ApprovalProcessRecord,
} from '../db/entities/approval-process.ts';

export interface GoverningProcess {
  process: ApprovalProcessRecord;
  attachment: ApprovalAttachmentRecord;
  page: WikiRecord;
}

/** The page and its ancestors, nearest first (bounded: hierarchies are at most 40 deep). */
async function withAncestors(page: WikiRecord): Promise<WikiRecord[]> {
  const chain = [page];
  let next = page.parent_wikiid;
  while (next && chain.length <= MAX_HIERARCHY_DEPTH && !chain.some((wiki) => wiki.wikiid === next)) {
    const parent = await getWiki(next);
    if (!parent) break;
    chain.push(parent);
    next = parent.parent_wikiid;
  }
  return chain;
}

async function governingPages(document: DocumentRef): Promise<WikiRecord[]> {
  if (document.wiki) return withAncestors(document.wiki);
  const category = document.guide ? await getWikiByTitle('CATEGORY', document.guide.category) : undefined;
  return category ? withAncestors(category) : [];
}

/** Every process attached along the document's chain, nearest (effective) first. */
export async function governingProcesses(document: DocumentRef): Promise<GoverningProcess[]> {
  const pages = await governingPages(document);
  const attachments = await getAttachments(pages.map((page) => page.wikiid));
  const processes = new Map(
    (await getProcesses(attachments.map((attachment) => attachment.approval_processid))).map((process) => [
      process.approval_processid,
      process,
    ]),
  );
  return attachments.flatMap((attachment) => {
    const process = processes.get(attachment.approval_processid);
    const page = pages.find((candidate) => candidate.wikiid === attachment.wikiid)!;
    return process ? [{ process, attachment, page }] : [];
  });
}
