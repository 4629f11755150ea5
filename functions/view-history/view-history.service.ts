/**
 * View history: who viewed which guide or wiki page, and when (recorded by the reads of
 * GET /guides/{guideid} and GET /wikis/{namespace}/{title}). A user's own history is for the
 * user and Admins; a document's viewers are for its author and Admins (a guide's author is its
 * `userid`, a wiki page's is the user who created it).
 */
import { ForbiddenError, NotFoundError, ValidationError } from '../../shared/domain/errors.ts';
import { isAdmin, type Caller } from '../../shared/domain/caller.ts';
import { getUser } from '../../shared/db/entities/user.ts';
import { getGuide } from '../../shared/db/entities/guide.ts';
import { getWiki } from '../../shared/db/entities/wiki.ts';
import {
  listViewsByUser,
  listViewsOfDocument,
  type DateRange,
  type ViewDocType,
} from '../../shared/db/entities/view-history.ts';
import { viewHistoryEntry, type ViewHistoryEntryView } from '../../shared/views/view-history-views.ts';
import type { ViewRangeQuery } from './view-history.schemas.ts';

function checkRange(range: DateRange): void {
  if (range.start_date !== undefined && range.end_date !== undefined && range.start_date > range.end_date) {
    throw ValidationError.field('end_date', 'invalid', 'end_date must not be before start_date');
  }
}

export async function ofUser(caller: Caller, userid: number, query: ViewRangeQuery): Promise<ViewHistoryEntryView[]> {
  if (!(await getUser(userid))) throw new NotFoundError(`No user with userid ${userid}`);
  if (caller.userid !== userid && !isAdmin(caller))
    throw new ForbiddenError("Only the user and Admins see a user's view history");
  checkRange(query);
  return (await listViewsByUser(userid, query, query)).map(viewHistoryEntry);
}

export function parseDocType(raw: string): ViewDocType {
  const upper = raw.toUpperCase();
  if (upper !== 'GUIDE' && upper !== 'WIKI') throw new NotFoundError(`Unknown document type ${raw}: use guide or wiki`);
  return upper;
}

async function documentAuthor(docType: ViewDocType, docid: number): Promise<number> {
  if (docType === 'GUIDE') {
    const guide = await getGuide(docid);
    if (!guide) throw new NotFoundError(`No guide with guideid ${docid}`);
    return guide.userid;
  }
  const wiki = await getWiki(docid);
  if (!wiki) throw new NotFoundError(`No wiki with wikiid ${docid}`);
  return wiki.author_userid;
}

export async function ofDocument(
  caller: Caller,
  rawDocType: string,
  docid: number,
  query: ViewRangeQuery,
): Promise<ViewHistoryEntryView[]> {
  const docType = parseDocType(rawDocType);
  const author = await documentAuthor(docType, docid);
  if (caller.userid !== author && !isAdmin(caller))
    throw new ForbiddenError("Only the document's author and Admins see who viewed it");
  checkRange(query);
  return (await listViewsOfDocument(docType, docid, query, query)).map(viewHistoryEntry);
}
