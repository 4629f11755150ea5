/**
 * A new release of a document may outdate completions of it (stage strictness). The people it
 * can affect are exactly those with a completion of the document (its trainee index), so their
 * stored rows are recomputed; a document nobody trained on costs one Query.
 */
import { documentTraineeChunks } from '../db/entities/training-record.ts';
import { mapLimit } from './map-limit.ts';
import { refreshDocumentProgress } from './progress.ts';

export async function refreshAfterRelease(doctype: 'guide' | 'wiki', docid: number): Promise<void> {
  for await (const userids of documentTraineeChunks({ doctype, docid })) {
    await mapLimit(userids, 8, (userid) => refreshDocumentProgress(userid, doctype, docid));
  }
}
