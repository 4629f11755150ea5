/**
 * Verifies an audit chain (shared/db/audit.ts): recomputes every record's hash and every link
 * to the previous record, and compares the chain head with the last record. Editing a record
 * breaks its own hash; deleting one leaves a gap in the seqs; deleting the tail leaves the head
 * pointing past the end; rewriting a record with a fresh hash breaks the next record's link.
 */
import { AUDIT_GENESIS_HASH, auditRecordHash, chainHead, readAuditChain, type AuditRecord } from './audit.ts';

export type AuditChainProblem = 'missing_record' | 'hash_mismatch' | 'link_mismatch' | 'head_mismatch';

export interface AuditChainCheck {
  valid: boolean;
  records_checked: number;
  head_seq: number;
  /** The first seq whose record is missing or does not verify; null when the chain is intact. */
  first_broken_seq: number | null;
  problem: AuditChainProblem | null;
}

/** Checks records (in seq order) against the chain head; pure, so it can be tested alone. */
export function checkAuditChain(records: AuditRecord[], head: { seq: number; hash: string }): AuditChainCheck {
  const broken = (seq: number, problem: AuditChainProblem): AuditChainCheck => ({
    valid: false,
    records_checked: records.length,
    head_seq: head.seq,
    first_broken_seq: seq,
    problem,
  });
  let previousHash = AUDIT_GENESIS_HASH;
  let expectedSeq = 1;
  for (const record of records) {
    if (Number(record.seq) !== expectedSeq) return broken(expectedSeq, 'missing_record');
    const { hash, ...unsigned } = record;
    if (auditRecordHash(unsigned) !== hash) return broken(expectedSeq, 'hash_mismatch');
    if (record.previous_hash !== previousHash) return broken(expectedSeq, 'link_mismatch');
    previousHash = hash;
    expectedSeq += 1;
  }
  const lastSeq = expectedSeq - 1;
  // The tail was cut off: the head names records that are gone.
  if (head.seq > lastSeq) return broken(lastSeq + 1, 'missing_record');
  // Records past the head were added without moving it: nothing vouches for them.
  if (head.seq < lastSeq) return broken(head.seq + 1, 'head_mismatch');
  if (head.hash !== previousHash) return broken(lastSeq, 'head_mismatch');
  return { valid: true, records_checked: records.length, head_seq: head.seq, first_broken_seq: null, problem: null };
}

const READ_CHUNK = 1000;

/** Reads a whole chain (O(chain length), in chunks) and checks it. */
export async function verifyAuditChain(subject: string): Promise<AuditChainCheck> {
  const head = await chainHead(subject);
  const records: AuditRecord[] = [];
  for (let afterSeq = 0; ; ) {
    const chunk = await readAuditChain(subject, READ_CHUNK, afterSeq);
    records.push(...chunk);
    if (chunk.length < READ_CHUNK) break;
    afterSeq = Number(chunk[chunk.length - 1].seq);
  }
  return checkAuditChain(records, head);
}
