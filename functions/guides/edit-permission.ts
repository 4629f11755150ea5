/**
 * The edit permission, checked again on the guide each write attempt reads: a change retried
 * after a lost race (up to 60 times without `revisionid`) must not land after the caller's
 * access was withdrawn meanwhile. The check before the first read still answers 404/401/403
 * early; this one keeps the answer true at the moment of the write.
 */
import { ForbiddenError } from '../../shared/domain/errors.ts';
import type { Caller } from '../../shared/domain/caller.ts';
import { canEditGuide, canManageGuideGrants } from '../../shared/content/guide-access.ts';
import type { GuideRecord } from '../../shared/db/entities/guide.ts';

export function stillMayEdit(caller: Caller, current: GuideRecord): void {
  if (!canEditGuide(caller, current))
    throw new ForbiddenError('Only the author, granted Authors and Admins may change this guide');
}

export function stillMayManageGrants(caller: Caller, current: GuideRecord): void {
  if (!canManageGuideGrants(caller, current))
    throw new ForbiddenError('Only the author and Admins grant access to this guide');
}
