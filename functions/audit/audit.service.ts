/**
 * Reading and verifying the audit trail (beyond the spec; Admins only). A document's chain
 * (GUIDE#<id>, WIKI#<id>) holds its reviews, approval requests, signatures and supersessions;
 * a user's chain (USER#<id>) holds what they did and what was done to them (impersonation, role
 * changes, signatures). History pages are oldest first by seq; verification reads the whole
 * chain and recomputes every hash and link (shared/db/audit-verify.ts). A chain outlives its
 * document: a deleted guide's history stays readable.
 */
import { auditSubject } from '../../shared/db/audit.ts';
import { NotFoundError } from '../../shared/domain/errors.ts';
import type { Doctype } from '../../shared/domain/doctypes.ts';
import { findDocument } from '../../shared/content/documents.ts';
import { chainHead, readAuditChain } from '../../shared/db/audit.ts';
import { verifyAuditChain } from '../../shared/db/audit-verify.ts';
import { getUser } from '../../shared/db/entities/user.ts';
import type { Page } from '../../shared/db/paging.ts';
import { auditRecordView, type AuditHistoryView, type AuditVerificationView } from '../../shared/views/audit-views.ts';

/** The chain's head; 404 when the chain is empty and its subject does not exist either. */
async function requireChain(subject: string, exists: () => Promise<boolean>): Promise<{ seq: number; hash: string }> {
  const head = await chainHead(subject);
  if (head.seq === 0 && !(await exists())) throw new NotFoundError(`No audit trail for ${subject}`);
  return head;
}

async function history(subject: string, exists: () => Promise<boolean>, page: Page): Promise<AuditHistoryView> {
  const head = await requireChain(subject, exists);
  // Seqs run 1, 2, 3 … so an offset is a seq to start after: O(page), not O(offset).
  const records = head.seq > page.offset ? await readAuditChain(subject, page.limit, page.offset) : [];
  return { subject, head_seq: head.seq, records: records.map(auditRecordView) };
}

async function verify(subject: string, exists: () => Promise<boolean>): Promise<AuditVerificationView> {
  await requireChain(subject, exists);
  return { subject, ...(await verifyAuditChain(subject)) };
}

const documentExists = (doctype: Doctype, docid: number) => async () =>
  (await findDocument(doctype, docid)) !== undefined;
const userExists = (userid: number) => async () => (await getUser(userid)) !== undefined;

export const documentHistory = (doctype: Doctype, docid: number, page: Page) =>
  history(auditSubject.document(doctype, docid), documentExists(doctype, docid), page);
export const documentVerify = (doctype: Doctype, docid: number) =>
  verify(auditSubject.document(doctype, docid), documentExists(doctype, docid));
export const userHistory = (userid: number, page: Page) => history(auditSubject.user(userid), userExists(userid), page);
export const userVerify = (userid: number) => verify(auditSubject.user(userid), userExists(userid));
