/**
 * One view of a guide or wiki page in a view history (GET /user_view_history/...; beyond the
 * recorded wire facts, §3.27). `docid` is a string, as the real service's ids in this API are.
 */
import * as z from 'zod/mini';
import type { ViewRecord } from '../db/entities/view-history.ts';

export const viewHistoryEntrySchema = z.object({
  userid: z.int(),
  username: z.string(),
  doc_type: z.enum(['GUIDE', 'WIKI']),
  docid: z.string(),
  date: z.int(),
});

export type ViewHistoryEntryView = z.output<typeof viewHistoryEntrySchema>;

export function viewHistoryEntry(view: ViewRecord): ViewHistoryEntryView {
  return {
    userid: view.userid,
    username: view.username,
    doc_type: view.doc_type,
    docid: String(view.docid),
    date: view.date,
  };
}
