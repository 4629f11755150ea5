/**
 * Tags on guides and wiki pages. A tag is a lower-case word or phrase (whitespace collapsed,
 * at most 64 characters), created the first time anyone uses it. Who may tag:
 * - a guide: its author, any Author who can see it, and Admins;
 * - a wiki page: Authors and Admins (the people who may edit wiki pages).
 * Anyone who can see the document reads its tags.
 */
import { ForbiddenError, NotFoundError, ValidationError } from '../../shared/domain/errors.ts';
import { actorFields, hasRole, type Caller } from '../../shared/domain/caller.ts';
import { assertCanViewGuide } from '../../shared/content/guide-access.ts';
import { guideKey } from '../../shared/db/entities/guide.ts';
import { wikiKey, type WikiRecord } from '../../shared/db/entities/wiki.ts';
import { addTag, listDocumentTags, listTags, removeTag, type TagTarget } from '../../shared/db/entities/tag.ts';
import { TransactionConditionFailed } from '../../shared/db/transactions.ts';
import { requireNamespace, requirePage } from '../../shared/content/wiki-pages.ts';
import type { Page } from '../../shared/db/paging.ts';
import type { TagListView } from '../../shared/views/tag-views.ts';

export const MAX_TAG_LENGTH = 64;

export function normalizeTag(raw: string): string {
  const tag = raw.replace(/\s+/g, ' ').trim().toLowerCase();
  if (tag === '') throw ValidationError.field('tag', 'invalid', 'tag must not be empty');
  if (tag.length > MAX_TAG_LENGTH)
    throw ValidationError.field('tag', 'invalid', `tag must be at most ${MAX_TAG_LENGTH} characters`);
  if (/[\u0000-\u001f\u007f#]/.test(tag))
    throw ValidationError.field('tag', 'invalid', 'tag must not contain # or control characters');
  return tag;
}

async function guideTarget(caller: Caller, guideid: number, forChange: boolean): Promise<TagTarget> {
  const guide = await assertCanViewGuide(caller, guideid);
  if (forChange && !(hasRole(caller, 'Author') || guide.userid === caller.userid)) {
    throw new ForbiddenError("Only the guide's author, Authors and Admins tag guides");
  }
  return { docType: 'GUIDE', docid: guideid, key: guideKey(guideid) };
}

async function wikiTarget(rawNamespace: string, title: string): Promise<TagTarget & { wiki: WikiRecord }> {
  const wiki = await requirePage(requireNamespace(rawNamespace), title);
  return { docType: 'WIKI', docid: wiki.wikiid, key: wikiKey(wiki.wikiid), wiki };
}

async function tag(target: TagTarget, rawTag: string, caller: Caller, page: Page): Promise<TagListView> {
  const name = normalizeTag(rawTag);
  try {
    await addTag(target, name, actorFields('userid', caller));
  } catch (error) {
    if (error instanceof TransactionConditionFailed && error.failedLabels.includes('document')) {
      throw new NotFoundError(`The ${target.docType.toLowerCase()} ${target.docid} no longer exists`);
    }
    throw error;
  }
  return listDocumentTags(target, page);
}

async function untag(target: TagTarget, rawTag: string): Promise<void> {
  const name = normalizeTag(rawTag);
  if (!(await removeTag(target, name)))
    throw new NotFoundError(`The ${target.docType.toLowerCase()} has no tag "${name}"`);
}

export function all(page: Page): Promise<TagListView> {
  return listTags(page);
}

/** Anyone who can see the guide; on a public site that includes anonymous readers of a public guide. */
export async function guideTags(caller: Caller | null, guideid: number, page: Page): Promise<TagListView> {
  await assertCanViewGuide(caller, guideid);
  return listDocumentTags({ docType: 'GUIDE', docid: guideid }, page);
}

export async function tagGuide(caller: Caller, guideid: number, rawTag: string, page: Page) {
  return tag(await guideTarget(caller, guideid, true), rawTag, caller, page);
}

export async function untagGuide(caller: Caller, guideid: number, rawTag: string) {
  return untag(await guideTarget(caller, guideid, true), rawTag);
}

export async function wikiTags(rawNamespace: string, title: string, page: Page): Promise<TagListView> {
  return listDocumentTags(await wikiTarget(rawNamespace, title), page);
}

export async function tagWiki(caller: Caller, rawNamespace: string, title: string, rawTag: string, page: Page) {
  return tag(await wikiTarget(rawNamespace, title), rawTag, caller, page);
}

export async function untagWiki(rawNamespace: string, title: string, rawTag: string) {
  return untag(await wikiTarget(rawNamespace, title), rawTag);
}
