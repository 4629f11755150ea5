/**
 * Request bodies of the releases group that its services take as input (`z.output` of these),
 * declared once for the routes and the service (a service never imports a routes file).
 */
import * as z from 'zod/mini';

/** Three transaction items a guide (release, version head, guide.released event) within DynamoDB's 100. */
export const MAX_DUPLICATE_TARGETS = 33;

const id = z.int().check(z.positive());
const releaseType = z.enum(['major', 'minor']);
const notes = z.optional(z.string().check(z.maxLength(5000)));

export const guideReleaseBody = z.object({ guideid: id, release_type: releaseType, revisionid: z.optional(id), notes });
export const releaseNotesBody = z.object({ notes });
export const duplicateReleasesBody = z.object({ releaseid: id, guideids: z.array(id).check(z.minLength(1)), notes });
export const wikiReleaseBody = z.object({ release_type: releaseType, revisionid: z.optional(id), notes });

export type GuideReleaseInput = z.output<typeof guideReleaseBody>;
export type ReleaseNotesInput = z.output<typeof releaseNotesBody>;
export type DuplicateReleasesInput = z.output<typeof duplicateReleasesBody>;
export type WikiReleaseInput = z.output<typeof wikiReleaseBody>;
