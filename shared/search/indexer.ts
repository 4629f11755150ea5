/**
 * Keeps the search index from the table (decision 208). Its input is the table's stream: a
 * change to a guide, a step or a wiki page names a document, which is read again as it is now
 * and put into (or taken out of) the index. Reading the record again, rather than trusting the
 * stream image, makes replays and out-of-order batches harmless: the index always ends at the
 * table's state. `rebuildSearchIndex` makes the whole index from the table (a site import, an
 * index of an older format, a lost head).
 */
import { queryChunks } from '../db/paging.ts';
import {
  allGuidesCollection,
  getGuide,
  getSteps,
  guideFromItem,
  type GuideRecord,
  type StepRecord,
} from '../db/entities/guide.ts';
import { getWiki, wikiFromItem, wikiNamespaceCollection } from '../db/entities/wiki.ts';
import { WIKI_NAMESPACES } from '../domain/wiki-namespaces.ts';
import { guideDocument, guideDocumentKey, wikiDocument, wikiDocumentKey } from './documents.ts';
import { miniSearchEngine } from './minisearch-engine.ts';
import { writeIndex, type IndexWrite } from './index-store.ts';
import type { SearchDocument, SearchIndexPort } from './search-port.ts';

/** A document to index again: a guide (its own item or one of its steps changed) or a wiki page. */
export type DocumentRef = { kind: 'guide'; guideid: number } | { kind: 'wiki'; wikiid: number };

/** A stream record's keys and images, plain (unmarshalled). */
export interface TableChange {
  keys: Record<string, unknown>;
  newImage?: Record<string, unknown>;
  oldImage?: Record<string, unknown>;
}

const GUIDE_PK = /^GUIDE#(\d+)$/;
const STEP_PK = /^STEP#(\d+)$/;
const WIKI_PK = /^WIKI#(\d+)$/;

/** The document a changed item belongs to, decided from its key; undefined for items search ignores. */
export function documentRefOf(change: TableChange): DocumentRef | undefined {
  const pk = String(change.keys.pk ?? '');
  const sk = String(change.keys.sk ?? '');
  if (sk === 'GUIDE' && GUIDE_PK.test(pk)) return { kind: 'guide', guideid: Number(GUIDE_PK.exec(pk)![1]) };
  if (sk === 'WIKI' && WIKI_PK.test(pk)) return { kind: 'wiki', wikiid: Number(WIKI_PK.exec(pk)![1]) };
  if (sk === 'STEP' && STEP_PK.test(pk)) {
    const guideid = Number((change.newImage ?? change.oldImage)?.guideid);
    return Number.isInteger(guideid) && guideid > 0 ? { kind: 'guide', guideid } : undefined;
  }
  return undefined;
}

const refKey = (ref: DocumentRef) =>
  ref.kind === 'guide' ? guideDocumentKey(ref.guideid) : wikiDocumentKey(ref.wikiid);

async function stepsOf(guide: GuideRecord): Promise<StepRecord[]> {
  return getSteps(guide.steps.map((step) => step.stepid));
}

/** The document as the table holds it now, or null when it is gone (or not searched). */
async function currentDocument(ref: DocumentRef): Promise<SearchDocument | null> {
  if (ref.kind === 'guide') {
    const guide = await getGuide(ref.guideid);
    return guide ? guideDocument(guide, await stepsOf(guide)) : null;
  }
  const wiki = await getWiki(ref.wikiid);
  return (wiki && wikiDocument(wiki)) ?? null;
}

/** Every document of the table, built into a new index: guides with their steps, then every page. */
export async function buildWholeIndex(): Promise<SearchIndexPort> {
  const index = miniSearchEngine.empty();
  for await (const items of queryChunks(allGuidesCollection, 100)) {
    const guides = items.map(guideFromItem);
    const steps = await getSteps(guides.flatMap((guide) => guide.steps.map((step) => step.stepid)));
    const byId = new Map(steps.map((step) => [step.stepid, step]));
    for (const guide of guides) {
      const own = guide.steps.map((ref) => byId.get(ref.stepid)).filter((step) => step !== undefined);
      index.upsert(guideDocument(guide, own));
    }
  }
  for (const namespace of WIKI_NAMESPACES) {
    for await (const items of queryChunks(wikiNamespaceCollection(namespace), 500)) {
      for (const item of items) {
        const document = wikiDocument(wikiFromItem(item));
        if (document) index.upsert(document);
      }
    }
  }
  return index;
}

/**
 * Indexes the documents these changes name, as they are now, in one write of the index. No
 * change search cares about: nothing is written.
 */
export async function indexChanges(changes: TableChange[]): Promise<IndexWrite | undefined> {
  const refs = new Map<string, DocumentRef>();
  for (const change of changes) {
    const ref = documentRefOf(change);
    if (ref) refs.set(refKey(ref), ref);
  }
  if (refs.size === 0) return undefined;
  return writeIndex(async (current) => {
    // No index yet (or of an older format): the whole table, which holds these changes too.
    if (!current) return buildWholeIndex();
    // Read inside the attempt, after the head: a retry after a lost race sees what the winner saw, or newer.
    for (const [key, ref] of refs) {
      const document = await currentDocument(ref);
      if (document) current.upsert(document);
      else current.remove(key);
    }
    return current;
  });
}

/** Makes the whole index again from the table (after a site import; `npm run` operators too). */
export async function rebuildSearchIndex(): Promise<IndexWrite> {
  return writeIndex(() => buildWholeIndex());
}
