/**
 * Guide releases: every release GET /guides/{guideid}/releases lists for the guides the guides
 * crawler found (released, pending, rejected and superseded alike), and each guide's version
 * head. Items are built by shared/db/entities/release.ts. Wiki releases have no read in API 2.0.
 */
import {
  headMoveWrite,
  releasePut,
  type ReleaseRecord,
  type ReleaseStatus,
} from '../../../../shared/db/entities/release.ts';
import { serviceAuthorOfWire } from '../../../../shared/domain/caller.ts';
import type { ReleaseView } from '../../../../shared/views/release-views.ts';
import { itemsOfWrites, type CrawlContext, type ResourceCrawler } from '../crawl.ts';

export function releaseRecordFromView(view: ReleaseView): ReleaseRecord {
  return {
    releaseid: view.releaseid,
    doctype: view.doctype,
    docid: view.docid,
    revisionid: view.revisionid,
    status: view.status as ReleaseStatus,
    version: view.version,
    major: view.major,
    minor: view.minor,
    release_type: view.release_type,
    notes: view.notes,
    date: view.date,
    release_date: view.release_date,
    approval_requestid: view.approval_requestid,
    userid: view.userid,
    ...serviceAuthorOfWire(view.user),
    langid: view.langid,
  };
}

/**
 * The last version handed out: the highest released version listed. A deleted release keeps the
 * head where it was, which API 2.0 does not show; the import's head is then the highest left.
 */
export function highestVersion(releases: ReleaseRecord[]): { major: number; minor: number } | undefined {
  let highest: { major: number; minor: number } | undefined;
  for (const release of releases) {
    if (release.major === null || release.minor === null) continue;
    if (!highest || release.major > highest.major || (release.major === highest.major && release.minor > highest.minor))
      highest = { major: release.major, minor: release.minor };
  }
  return highest;
}

async function crawlGuideReleases(context: CrawlContext, guideid: number): Promise<void> {
  // One answer with every release of the guide (the list is not paged).
  const answer = await context.api.find<{ releases: ReleaseView[] }>(`/guides/${guideid}/releases`);
  if (!answer) context.report.unexposed('releases of some guides', 'GET /guides/{guideid}/releases was refused');
  const views = answer?.releases ?? [];
  if (views.length === 0) return;
  const releases = views.map(releaseRecordFromView);
  for (const release of releases) {
    context.known.add('release', release.releaseid);
    context.sink.idSeen('release', release.releaseid);
  }
  const head = highestVersion(releases);
  const noHead = { major: 0, minor: 0, exists: false };
  await context.sink.items(
    itemsOfWrites([...releases.map(releasePut), ...(head ? [headMoveWrite('guide', guideid, noHead, head)] : [])]),
  );
}

export const releasesCrawler: ResourceCrawler = {
  name: 'releases',
  after: ['guides'],
  async crawl(context) {
    context.report.unexposed('wiki releases', 'API 2.0 has no read of a wiki page\u2019s releases');
    context.report.unexposed(
      'the version head of a guide whose highest release was deleted',
      'the head is taken from the highest version still listed',
    );
    for (const guideid of context.known.all('guide')) {
      const unit = `releases:guide:${guideid}`;
      if (context.isDone(unit)) continue;
      await crawlGuideReleases(context, guideid);
      await context.completed(unit);
    }
  },
};
