/**
 * Where the LRS keeps bytes too large for a table item (docs/lrs.md), in the media bucket: statement
 * attachments under xapi/attachments/<sha2>, large documents under xapi/documents/<document>/<etag>.
 */
import { config } from '../config.ts';

export const XAPI_ATTACHMENTS_PREFIX = 'xapi/attachments/';

export function xapiBucket(): string {
  return config().MEDIA_BUCKET;
}

export function xapiAttachmentKey(sha2: string): string {
  return `${XAPI_ATTACHMENTS_PREFIX}${sha2.toLowerCase()}`;
}

export const XAPI_DOCUMENTS_PREFIX = 'xapi/documents/';

/** A large document's content: by the document (a hash of its key) and the ETag of this content. */
export function xapiDocumentKey(documentHash: string, etag: string): string {
  return `${XAPI_DOCUMENTS_PREFIX}${documentHash}/${etag}`;
}
