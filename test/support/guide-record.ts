/**
 * A guide record as the guide entity stores it, for tests and benches that build items straight
 * from the entity's own builders: the defaults are an empty, public how-to; callers name what
 * their case is about.
 */
import { emptyGuide, type GuideRecord } from '../../shared/db/entities/guide.ts';

export function guideRecord(
  fields: Partial<GuideRecord> & Pick<GuideRecord, 'guideid' | 'title' | 'userid'>,
): GuideRecord {
  const base = { langid: 'en', type: 'how-to', category: 'Printers', revisionid: 1, ...fields };
  return { ...emptyGuide(base, fields.created_date ?? 1), public: true, ...fields };
}
