/**
 * Records as search documents: a guide with its steps, a wiki or category page. Course pages
 * (COURSE) have their own endpoints and access, and are not searched. No I/O.
 */
import type { GuideRecord } from '../db/entities/guide.ts';
import type { StepRecord } from '../db/entities/step.ts';
import type { WikiRecord } from '../db/entities/wiki.ts';
import type { SearchDocument, SearchKind } from './search-port.ts';

export const guideDocumentKey = (guideid: number) => `guide:${guideid}`;
export const wikiDocumentKey = (wikiid: number) => `wiki:${wikiid}`;

export function guideDocument(guide: GuideRecord, steps: StepRecord[]): SearchDocument {
  const stepText = steps.flatMap((step) => [step.title, ...step.lines.map((line) => line.text_raw)]);
  return {
    key: guideDocumentKey(guide.guideid),
    kind: 'guide',
    recordid: guide.guideid,
    langid: guide.langid,
    type: guide.type,
    title: guide.title,
    summary: guide.summary,
    body: [guide.subject, guide.category, guide.introduction_raw, ...stepText, guide.conclusion_raw].join('\n'),
    access: {
      public: guide.public,
      userid: guide.userid,
      grant_userids: guide.grant_userids,
      grant_teamids: guide.grant_teamids,
    },
  };
}

function wikiKind(wiki: Pick<WikiRecord, 'namespace'>): SearchKind | undefined {
  if (wiki.namespace === 'CATEGORY') return 'category';
  if (wiki.namespace === 'COURSE') return undefined;
  return 'wiki';
}

/** The page's document, or undefined for a page that is not searched (a course). */
export function wikiDocument(wiki: WikiRecord): SearchDocument | undefined {
  const kind = wikiKind(wiki);
  if (!kind) return undefined;
  return {
    key: wikiDocumentKey(wiki.wikiid),
    kind,
    recordid: wiki.wikiid,
    langid: wiki.langid,
    type: '',
    title: wiki.display_title === wiki.title ? wiki.title : `${wiki.display_title}\n${wiki.title}`,
    summary: wiki.description,
    body: wiki.contents_raw,
    access: null,
  };
}
