/**
 * A user's guides: those they authored, favorited and completed. Lists show only guides the
 * caller can read (someone else's list never reveals a private guide), in guideid order.
 */
import { NotFoundError } from '../../shared/domain/errors.ts';
import type { Caller } from '../../shared/domain/caller.ts';
import { nowSeconds } from '../../shared/clock.ts';
import { getUser } from '../../shared/db/entities/user.ts';
import { authoredGuidesCollection, linkedGuideid } from '../../shared/db/entities/guide-link.ts';
import {
  deleteGuideMark,
  guideMarksCollection,
  markFromItem,
  putGuideMark,
  type GuideMarkKind,
} from '../../shared/db/entities/guide-mark.ts';
import { assertCanViewGuide, canViewGuideNow } from '../../shared/content/guide-access.ts';
import { guideMarkViews, guidesForList, listedGuideSummaries } from '../../shared/read-models/guide-pages.ts';
import type { GuideMarkView } from '../../shared/views/guide-mark-views.ts';
import { selectedPage } from '../../shared/content/visible-page.ts';
import type { Page } from '../../shared/db/paging.ts';

async function requireUser(userid: number): Promise<void> {
  if (!(await getUser(userid))) throw new NotFoundError(`No user with userid ${userid}`);
}

/** Summaries of the guides a user authored that the caller can read. */
export async function authoredGuides(caller: Caller, userid: number, page: Page) {
  if (userid !== caller.userid) await requireUser(userid);
  const listed = await selectedPage(authoredGuidesCollection(userid), page, async (items) =>
    (await guidesForList(items.map(linkedGuideid))).filter(({ guide }) => canViewGuideNow(caller, guide)),
  );
  return listedGuideSummaries(listed);
}

/** `[{guide: GuideSummary, date}]` of a user's favorites or completions, guides the caller can read. */
export async function markedGuides(
  caller: Caller,
  kind: GuideMarkKind,
  userid: number,
  page: Page,
): Promise<GuideMarkView[]> {
  if (userid !== caller.userid) await requireUser(userid);
  const entries = await selectedPage(guideMarksCollection(kind, userid), page, async (items) => {
    const marks = items.map(markFromItem);
    const guides = new Map(
      (await guidesForList(marks.map((mark) => mark.guideid)))
        .filter(({ guide }) => canViewGuideNow(caller, guide))
        .map((listed) => [listed.guide.guideid, listed]),
    );
    return marks
      .filter((mark) => guides.has(mark.guideid))
      .map((mark) => ({ ...guides.get(mark.guideid)!, date: mark.date }));
  });
  return guideMarkViews(entries);
}

/** Sets or clears the caller's mark on a guide they can read; both idempotent. */
export async function setMark(caller: Caller, kind: GuideMarkKind, guideid: number, marked: boolean): Promise<void> {
  await assertCanViewGuide(caller, guideid);
  if (marked) await putGuideMark(kind, { userid: caller.userid, guideid, date: nowSeconds() });
  else await deleteGuideMark(kind, caller.userid, guideid);
}
