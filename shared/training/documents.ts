/**
 * The documents course stages point at (guides, wiki pages, external training modules): title,
 * relative URL, current revision and latest release, read in batches for a set of stages.
 */
import { batchGetInOrder } from '../db/batch.ts';
import { getGuides } from '../db/entities/guide.ts';
import { latestRelease } from '../db/entities/release.ts';
import { getModules } from '../db/entities/training-module.ts';
import { wikiFromItem, wikiKey } from '../db/entities/wiki.ts';
import { docKeyOf, type DocRef } from '../db/entities/training-record.ts';
import type { StageDoctype } from '../db/entities/course.ts';
import type { ReleaseVersion } from '../domain/stage-status.ts';
import { urlSlug } from '../domain/text.ts';
import type { StageDocument } from '../views/course-views.ts';
import { wikiPath } from '../domain/wiki-namespaces.ts';

export type { StageDocument };

export function guidePath(guide: { guideid: number; title: string }): string {
  return `/Guide/${urlSlug(guide.title)}/${guide.guideid}`;
}

export function modulePath(moduleid: number): string {
  return `/ExternalTrainingModule/${moduleid}`;
}

/** The documents that exist, keyed by `doctype#docid`; wiki pages of the COURSE namespace do not count. */
export async function stageDocuments(docs: DocRef[]): Promise<Map<string, StageDocument>> {
  const ids = (doctype: StageDoctype) => [
    ...new Set(docs.filter((doc) => doc.doctype === doctype).map((doc) => doc.docid)),
  ];
  const [guides, wikiItems, modules] = await Promise.all([
    getGuides(ids('guide')),
    batchGetInOrder(ids('wiki').map(wikiKey)),
    getModules(ids('external_training_module')),
  ]);
  const found = new Map<string, StageDocument>();
  for (const guide of guides)
    found.set(`guide#${guide.guideid}`, {
      doctype: 'guide',
      docid: guide.guideid,
      title: guide.title,
      url: guidePath(guide),
      revisionid: guide.revisionid,
    });
  for (const wiki of wikiItems.map(wikiFromItem)) {
    if (wiki.namespace === 'COURSE') continue;
    found.set(`wiki#${wiki.wikiid}`, {
      doctype: 'wiki',
      docid: wiki.wikiid,
      title: wiki.display_title || wiki.title,
      url: wikiPath(wiki),
      revisionid: wiki.revisionid,
    });
  }
  for (const module of modules) {
    found.set(`external_training_module#${module.moduleid}`, {
      doctype: 'external_training_module',
      docid: module.moduleid,
      title: module.title,
      url: modulePath(module.moduleid),
      revisionid: module.current_importid,
    });
  }
  return found;
}

export async function stageDocument(doc: DocRef): Promise<StageDocument | undefined> {
  return (await stageDocuments([doc])).get(docKeyOf(doc));
}

/** The newest release of each document (guides and wikis have releases; modules do not). */
export async function latestReleases(docs: DocRef[]): Promise<Map<string, ReleaseVersion | null>> {
  const unique = [...new Map(docs.map((doc) => [docKeyOf(doc), doc])).values()];
  const versions = await Promise.all(
    unique.map(async (doc) => {
      if (doc.doctype === 'external_training_module') return null;
      const release = await latestRelease(doc.doctype, doc.docid);
      return release ? { major: release.major, minor: release.minor } : null;
    }),
  );
  return new Map(unique.map((doc, index) => [docKeyOf(doc), versions[index]]));
}
