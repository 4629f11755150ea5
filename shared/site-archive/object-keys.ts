/**
 * The object keys a site file may carry: exactly the shapes Stepwise writes (media originals and
 * derived sizes, module packages and their extracted content), nothing else. A key of any other
 * shape, or one with a `..`/`.` segment, a backslash or a control character, refuses the import
 * (decision 165): keys map to files on the local stack, and to paths in module players.
 */
import { MEDIA_DERIVED_PREFIX, MEDIA_ORIGINALS_PREFIX } from '../storage/media-objects.ts';
import { MODULE_CONTENT_PREFIX, MODULE_PACKAGES_PREFIX } from '../storage/module-objects.ts';
import { XAPI_ATTACHMENTS_PREFIX, XAPI_DOCUMENTS_PREFIX } from '../storage/xapi-objects.ts';
import type { BucketRole } from './records.ts';

const ID = '[1-9][0-9]{0,14}';
/** One path segment: no separators, no control characters, not `.` or `..`. */
const SEGMENT = '(?!\\.{1,2}(?:/|$))[^/\\\\\\u0000-\\u001f\\u007f]{1,255}';
const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

const SHAPES: Record<BucketRole, RegExp[]> = {
  media: [
    new RegExp(`^${literal(MEDIA_ORIGINALS_PREFIX)}${ID}/${SEGMENT}$`),
    // An image's copy and its sizes at their public path: `igi/<guid>` and `igi/<guid>.<size>` (decision 197).
    new RegExp(`^${literal(MEDIA_DERIVED_PREFIX)}[A-Za-z0-9_-]{1,64}(?:\\.[A-Za-z0-9]{1,20})?$`),
    // Sizes as files exported before decision 197 wrote them: imported as they are, served by nothing.
    new RegExp(`^derived/${ID}/${SEGMENT}$`),
    // The LRS's statement attachments, by their SHA-2 (docs/lrs.md).
    new RegExp(`^${literal(XAPI_ATTACHMENTS_PREFIX)}[0-9a-f]{56,128}$`),
    new RegExp(`^${literal(XAPI_DOCUMENTS_PREFIX)}[0-9a-f]{64}/[0-9a-f]{40}$`),
  ],
  modules: [
    new RegExp(`^${literal(MODULE_PACKAGES_PREFIX)}${ID}/package\\.zip$`),
    new RegExp(`^${literal(MODULE_CONTENT_PREFIX)}${ID}(/${SEGMENT})+$`),
  ],
};

/** Longest key S3 takes (1,024 bytes of UTF-8). */
const MAX_KEY_BYTES = 1024;

export function isAllowedObjectKey(role: BucketRole, key: string): boolean {
  if (Buffer.byteLength(key) > MAX_KEY_BYTES) return false;
  return SHAPES[role].some((shape) => shape.test(key));
}
