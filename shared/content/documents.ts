/**
 * Guides and wiki pages as "documents" for compliance (periodic review, approvals, audit): one
 * way to find a document, to name its audit chain, to check who may read it, and to fingerprint
 * a revision. The fingerprint is SHA-256 over the canonical JSON of the revision snapshot (the
 * guide's fields with its steps as they were, or the wiki page's content), so a signature bound
 * to it names exactly the content that was signed, and can be checked again at any later time.
 */
import { config } from '../config.ts';
import { NotFoundError } from '../domain/errors.ts';
import { canonicalJson } from '../domain/canonical-json.ts';
import { sha256Hex } from '../domain/secrets.ts';
import { guideUrl } from '../views/guide-views.ts';
import { wikiUrl } from '../domain/wiki-namespaces.ts';
import type { Caller } from '../domain/caller.ts';
import { getGuide, type GuideRecord } from '../db/entities/guide.ts';
import { getWiki, getWikiRevision, type WikiRecord } from '../db/entities/wiki.ts';
import { getGuideRevision } from './guide-revisions.ts';
import { canViewGuideNow } from './guide-access.ts';
import type { Doctype } from '../domain/doctypes.ts';

export { DOCTYPES, type Doctype } from '../domain/doctypes.ts';

export interface DocumentRef {
  doctype: Doctype;
  docid: number;
  title: string;
  url: string;
  revisionid: number;
  /** Who answers change requests: the guide's author, the page's creator. */
  owner_userid: number;
  guide?: GuideRecord;
  wiki?: WikiRecord;
}

export async function findDocument(doctype: Doctype, docid: number): Promise<DocumentRef | undefined> {
  const siteUrl = config().STEPWISE_SITE_URL;
  if (doctype === 'guide') {
    const guide = await getGuide(docid, { consistent: true });
    if (!guide) return undefined;
    return {
      doctype,
      docid,
      title: guide.title,
      url: guideUrl(siteUrl, guide),
      revisionid: guide.revisionid,
      owner_userid: guide.userid,
      guide,
    };
  }
  const wiki = await getWiki(docid);
  if (!wiki) return undefined;
  return {
    doctype,
    docid,
    title: wiki.display_title || wiki.title,
    url: wikiUrl(siteUrl, wiki),
    revisionid: wiki.revisionid,
    owner_userid: wiki.author_userid,
    wiki,
  };
}

export async function requireDocument(doctype: Doctype, docid: number): Promise<DocumentRef> {
  const document = await findDocument(doctype, docid);
  if (!document) throw new NotFoundError(`No ${doctype} with id ${docid}`);
  return document;
}

/** Guides follow their access rules; wiki pages are readable by every signed-in user. */
export function canViewDocument(caller: Caller, document: DocumentRef): boolean {
  return document.guide ? canViewGuideNow(caller, document.guide) : true;
}

/** SHA-256 of the canonical JSON of a revision's snapshot; undefined if there is no such revision. */
export async function revisionHash(doctype: Doctype, docid: number, revisionid: number): Promise<string | undefined> {
  const snapshot =
    doctype === 'guide' ? await getGuideRevision(docid, revisionid) : await getWikiRevision(docid, revisionid);
  if (!snapshot) return undefined;
  return sha256Hex(canonicalJson({ doctype, docid, revisionid, snapshot }));
}
