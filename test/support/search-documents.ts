/** Search documents for the search tests (test/unit/search-*.test.ts): a public English how-to guide unless told. */
import type { SearchDocument } from '../../shared/search/search-port.ts';

export function searchDocument(recordid: number, fields: Partial<SearchDocument>): SearchDocument {
  return {
    key: `guide:${recordid}`,
    kind: 'guide',
    recordid,
    langid: 'en',
    type: 'how-to',
    title: '',
    summary: '',
    body: '',
    access: { public: true, userid: 1, grant_userids: [], grant_teamids: [] },
    ...fields,
  };
}
