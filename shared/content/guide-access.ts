/**
 * Who may see and change a guide (docs/guides.md "Access").
 * - View: anyone when the guide is public; a private guide only its author, Admins, and users
 *   granted it (directly or through one of their teams).
 * - Edit (content, steps, publishing, releases, delete): Admins, the author, and Authors who
 *   are granted the guide.
 * - Manage grants: Admins and the author.
 * Comments, tags, view history, work logs and courses call these, so the rule lives here once.
 */
import { ForbiddenError, NotFoundError, UnauthenticatedError } from '../domain/errors.ts';
import { hasRole, isAdmin, type Caller } from '../domain/caller.ts';
import { getGuide, type GuideRecord } from '../db/entities/guide.ts';

/** What the view rule reads of a guide (the search index stores these with each guide). */
export type GuideAccessFields = Pick<GuideRecord, 'public' | 'userid' | 'grant_userids' | 'grant_teamids'>;

function isGranted(caller: Caller, guide: GuideAccessFields): boolean {
  return (
    guide.grant_userids.includes(caller.userid) || caller.teams.some((teamid) => guide.grant_teamids.includes(teamid))
  );
}

export function canViewGuideNow(caller: Caller | null, guide: GuideAccessFields): boolean {
  if (guide.public) return true;
  if (!caller) return false;
  return isAdmin(caller) || guide.userid === caller.userid || isGranted(caller, guide);
}

/** Whether the caller may read the guide (async for callers that already hold the record). */
export async function canViewGuide(caller: Caller | null, guide: GuideRecord): Promise<boolean> {
  return canViewGuideNow(caller, guide);
}

export function canEditGuide(caller: Caller | null, guide: GuideRecord): boolean {
  if (!caller) return false;
  return isAdmin(caller) || guide.userid === caller.userid || (hasRole(caller, 'Author') && isGranted(caller, guide));
}

export function canManageGuideGrants(caller: Caller | null, guide: GuideRecord): boolean {
  return caller !== null && (isAdmin(caller) || guide.userid === caller.userid);
}

async function requireGuide(guideid: number): Promise<GuideRecord> {
  const guide = await getGuide(guideid);
  // The real service's words: the apps' offline sync drops a favorite that answers this 404.
  if (!guide) throw new NotFoundError('Guide not found');
  return guide;
}

function refuse(caller: Caller | null, message: string): never {
  if (!caller) throw new UnauthenticatedError('Authentication required');
  throw new ForbiddenError(message);
}

/** The guide if the caller may read it: 404 unknown, 401 anonymous on a private guide, 403 otherwise. */
export async function assertCanViewGuide(caller: Caller | null, guideid: number): Promise<GuideRecord> {
  const guide = await requireGuide(guideid);
  if (!canViewGuideNow(caller, guide)) refuse(caller, 'You do not have access to this guide');
  return guide;
}

/** The guide if the caller may change it: 404, 401, or 403 (also when they may only read it). */
export async function assertCanEditGuide(caller: Caller | null, guideid: number): Promise<GuideRecord> {
  const guide = await requireGuide(guideid);
  if (!canEditGuide(caller, guide)) refuse(caller, 'Only the author, granted Authors and Admins may change this guide');
  return guide;
}

export async function assertCanManageGuideGrants(caller: Caller | null, guideid: number): Promise<GuideRecord> {
  const guide = await requireGuide(guideid);
  if (!canManageGuideGrants(caller, guide)) refuse(caller, 'Only the author and Admins grant access to this guide');
  return guide;
}
