import { describe, expect, it } from 'vitest';
import { AUDIT_GENESIS_HASH, auditRecordHash, type AuditRecord } from '../../shared/db/audit.ts';
import { checkAuditChain } from '../../shared/db/audit-verify.ts';

function chain(length: number): AuditRecord[] {
  const records: AuditRecord[] = [];
  let previous = AUDIT_GENESIS_HASH;
  for (let seq = 1; seq <= length; seq++) {
    const unsigned = {
      action: 'approval.signed',
      actor_userid: seq,
      subjects: ['GUIDE#1'],
      details: { meaning: 'approve', old: { status: 'pending' }, new: { status: 'pending' } },
      impersonator_userid: null,
      subject: 'GUIDE#1',
      seq,
      date: 1_800_000_000 + seq,
      previous_hash: previous,
    };
    const record = { ...unsigned, hash: auditRecordHash(unsigned) };
    records.push(record);
    previous = record.hash;
  }
  return records;
}

const headOf = (records: AuditRecord[]) => ({ seq: records.length, hash: records.at(-1)?.hash ?? AUDIT_GENESIS_HASH });

describe('checkAuditChain', () => {
  it('accepts an intact chain and an empty one', () => {
    const records = chain(4);
    expect(checkAuditChain(records, headOf(records))).toEqual({
      valid: true,
      records_checked: 4,
      head_seq: 4,
      first_broken_seq: null,
      problem: null,
    });
    expect(checkAuditChain([], { seq: 0, hash: AUDIT_GENESIS_HASH }).valid).toBe(true);
  });

  it('finds an edited record by its hash', () => {
    const records = chain(4);
    const head = headOf(records);
    records[1] = { ...records[1], details: { ...records[1].details, meaning: 'reject' } };
    expect(checkAuditChain(records, head)).toMatchObject({
      valid: false,
      first_broken_seq: 2,
      problem: 'hash_mismatch',
    });
  });

  it("finds a record rewritten with a fresh hash by the next record's link", () => {
    const records = chain(4);
    const head = headOf(records);
    const { hash, ...unsigned } = { ...records[1], actor_userid: 99 };
    records[1] = { ...unsigned, hash: auditRecordHash(unsigned) };
    expect(checkAuditChain(records, head)).toMatchObject({
      valid: false,
      first_broken_seq: 3,
      problem: 'link_mismatch',
    });
  });

  it('finds a deleted record and a cut-off tail', () => {
    const records = chain(4);
    expect(checkAuditChain([records[0], records[2], records[3]], headOf(records))).toMatchObject({
      first_broken_seq: 2,
      problem: 'missing_record',
    });
    expect(checkAuditChain(records.slice(0, 3), headOf(records))).toMatchObject({
      first_broken_seq: 4,
      problem: 'missing_record',
    });
  });

  it('finds records appended without moving the head', () => {
    const records = chain(4);
    expect(checkAuditChain(records, headOf(records.slice(0, 3)))).toMatchObject({
      first_broken_seq: 4,
      problem: 'head_mismatch',
    });
  });
});
