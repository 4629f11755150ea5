/**
 * A guide record as the guide entity stores it, for tests and benches that build items straight
 * from the entity's own builders: the defaults are an empty, public how-to; callers name what
 * their case is about.
 */
import type { GuideRecord } from '../../shared/db/entities/guide.ts';

export function guideRecord(
  fields: Partial<GuideRecord> & Pick<GuideRecord, 'guideid' | 'title' | 'userid'>,
): GuideRecord {
  const date = fields.created_date ?? 1;
  return {
    langid: 'en',
    type: 'how-to',
    category: 'Printers',
    subject: '',
    summary: '',
    introduction_raw: '',
    introduction_rendered: '',
    conclusion_raw: '',
    conclusion_rendered: '',
    difficulty: null,
    time_required_min: 0,
    time_required_max: 0,
    parts: [],
    tools: [],
    documents: [],
    prerequisites: [],
    flags: [],
    public: true,
    image: null,
    created_date: date,
    published_date: null,
    modified_date: date,
    revisionid: 1,
    version: 1,
    steps: [],
    grant_userids: [],
    grant_teamids: [],
    search_tokens: [],
    ...fields,
  };
}
