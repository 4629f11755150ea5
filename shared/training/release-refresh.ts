/**
 * A new release of a document may outdate completions of it (stage strictness). The people it
 * can affect are exactly those with a completion of the document (its trainee index), so their
 * stored rows are recomputed; a document nobody trained on costs one Query. The release then
 * asks the people it concerns for an acknowledgement (acknowledgement-requests.ts).
 */
import { documentTraineeChunks } from '../db/entities/training-record.ts';
import { mapLimit } from './map-limit.ts';
import { refreshDocumentProgress } from './progress.ts';
import { requestAcknowledgements } from './acknowledgement-requests.ts';

/** Recomputes the stored course rows of everyone with a completion of the document (its trainee index). */
export async function refreshDocumentTrainees(doctype: 'guide' | 'wiki', docid: number): Promise<void> {
  for await (const userids of documentTraineeChunks({ doctype, docid })) {
    await mapLimit(userids, 8, (userid) => refreshDocumentProgress(userid, doctype, docid));
  }
}

export async function refreshAfterRelease(doctype: 'guide' | 'wiki', docid: number): Promise<void> {
  await refreshDocumentTrainees(doctype, docid);
  // The people it concerns are asked to acknowledge it (docs/competency.md).
  await requestAcknowledgements(doctype, docid);
}
