/**
 * The wire shape of a guide or wiki release: our fields plus the real service's guide-release
 * names (§2.12: guideid, title "Release V2.1", status, type, init_date, release_date, user). A
 * release made through an approval request has no version (null) until it is released.
 */
import * as z from 'zod/mini';
import type { ReleaseRecord } from '../db/entities/release.ts';
import type { UserRecord } from '../db/entities/user.ts';
import { userSummarySchema } from './common-schemas.ts';
import { serviceAuthorSummary, userSummary } from './user-views.ts';

export const releaseSchema = z.object({
  releaseid: z.int(),
  doctype: z.enum(['guide', 'wiki']),
  docid: z.int(),
  /** guideid for a guide release, wikiid for a wiki release. */
  guideid: z.optional(z.int()),
  wikiid: z.optional(z.int()),
  langid: z.string(),
  revisionid: z.int(),
  version: z.nullable(z.string()),
  major: z.nullable(z.int()),
  minor: z.nullable(z.int()),
  release_type: z.enum(['major', 'minor']),
  type: z.enum(['major', 'minor']),
  title: z.string(),
  status: z.enum(['released', 'pending_approval', 'rejected', 'superseded']),
  approval_requestid: z.nullable(z.int()),
  notes: z.string(),
  date: z.int(),
  init_date: z.int(),
  release_date: z.nullable(z.int()),
  userid: z.int(),
  user: z.nullable(userSummarySchema),
});

/** The answer of the release lists and of POST /guides/duplicateReleases. */
export const releaseListSchema = z.object({ releases: z.array(releaseSchema) });

export type ReleaseView = z.output<typeof releaseSchema>;

export function releaseView(release: ReleaseRecord, user: UserRecord | undefined, siteUrl: string): ReleaseView {
  return {
    releaseid: release.releaseid,
    doctype: release.doctype,
    docid: release.docid,
    ...(release.doctype === 'guide' ? { guideid: release.docid } : { wikiid: release.docid }),
    langid: release.langid,
    revisionid: release.revisionid,
    version: release.version,
    major: release.major,
    minor: release.minor,
    release_type: release.release_type,
    type: release.release_type,
    title: release.version === null ? `Release (${release.status.replace('_', ' ')})` : `Release V${release.version}`,
    status: release.status,
    approval_requestid: release.approval_requestid,
    notes: release.notes,
    date: release.date,
    init_date: release.date,
    release_date: release.release_date,
    userid: release.userid,
    // A site API token's release shows the token (decision 244), never null.
    user: release.service_author
      ? serviceAuthorSummary(release.service_author, siteUrl)
      : user
        ? userSummary(user, siteUrl)
        : null,
  };
}
