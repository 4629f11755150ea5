/**
 * Keeps the search index from the table (decision 208). Its input is the table's stream: a
 * change to a guide, a step or a wiki page names a document, which is read again as it is now
 * and put into (or taken out of) the index. Reading the record again, rather than trusting the
 * stream image, makes replays and out-of-order batches harmless: the index always ends at the
 * table's state. `rebuildSearchIndex` makes the whole index from the table (a site import, an
 * index of an older format, a lost head). The merges that keep the delta small run after the
 * change is stored (stream-handler.ts), so they never stand between a write and its search.
 */
import { queryChunks } from '../db/paging.ts';
import { allGuidesCollection, getGuide, guideFromItem, type GuideRecord } from '../db/entities/guide.ts';
import { getSteps, type StepRecord } from '../db/entities/step.ts';
import { getWiki, wikiFromItem, wikiNamespaceCollection } from '../db/entities/wiki.ts';
import { WIKI_NAMESPACES } from '../domain/wiki-namespaces.ts';
import { guideDocument, guideDocumentKey, wikiDocument, wikiDocumentKey } from './documents.ts';
import { searchBackend } from './backends.ts';
import type { SearchDocument, SearchWritten } from './search-port.ts';

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

/** Every document of the table: guides with their steps, then every page. */
export async function allDocuments(): Promise<SearchDocument[]> {
  const documents: SearchDocument[] = [];
  for await (const items of queryChunks(allGuidesCollection, 100)) {
    const guides = items.map(guideFromItem);
    const steps = await getSteps(guides.flatMap((guide) => guide.steps.map((step) => step.stepid)));
    const byId = new Map(steps.map((step) => [step.stepid, step]));
    for (const guide of guides) {
      const own = guide.steps.map((ref) => byId.get(ref.stepid)).filter((step) => step !== undefined);
      documents.push(guideDocument(guide, own));
    }
  }
  for (const namespace of WIKI_NAMESPACES) {
    for await (const items of queryChunks(wikiNamespaceCollection(namespace), 500)) {
      for (const item of items) {
        const document = wikiDocument(wikiFromItem(item));
        if (document) documents.push(document);
      }
    }
  }
  return documents;
}

/** Documents read from the table at once while a batch is indexed. */
const READ_CONCURRENCY = 16;

/**
 * Indexes the documents these changes name, as they are now, in one write of the site's search
 * backend. Returns what the backend would do after it (the embedded index's merges, decision
 * 289), for the caller to run now or in the background; no change search cares about: nothing
 * is written.
 */
export async function indexChanges(changes: TableChange[]): Promise<SearchWritten> {
  const refs = new Map<string, DocumentRef>();
  for (const change of changes) {
    const ref = documentRefOf(change);
    if (ref) refs.set(refKey(ref), ref);
  }
  if (refs.size === 0) return {};
  return searchBackend().write(async (index) => {
    // Read inside the attempt, after the head: a retry after a lost race sees what the winner saw, or newer.
    const entries = [...refs];
    for (let start = 0; start < entries.length; start += READ_CONCURRENCY) {
      const part = entries.slice(start, start + READ_CONCURRENCY);
      const documents = await Promise.all(part.map(([, ref]) => currentDocument(ref)));
      part.forEach(([key], n) => {
        const document = documents[n];
        if (document) index.upsert(document);
        else index.remove(key);
      });
    }
    // No index yet (or of an older layout): the whole table, which holds these changes too.
  }, allDocuments);
}

/** Makes the whole index again from the table (after a site import; `npm run` operators too). */
export async function rebuildSearchIndex(): Promise<{ engine: string; documents: number }> {
  const backend = searchBackend();
  return { engine: backend.name, ...(await backend.rebuild(allDocuments)) };
}
