/**
 * `GET /user/sign_intents`: the caller's intents to sign, recorded by the journal (decisions 225
 * and 252), so a device that lost its journal (a reinstall, another tablet) still finds what it
 * has to confirm online, and through which route.
 */
import type { Caller } from '../../shared/domain/caller.ts';
import type { Page } from '../../shared/db/paging.ts';
import { signIntentsOf } from '../../shared/db/entities/sign-intent.ts';
import { signIntentView, type SignIntentView } from '../../shared/views/sign-intent-views.ts';

export const SIGN_INTENT_STATES = ['pending', 'confirmed', 'all'] as const;

export async function listSignIntents(
  caller: Caller,
  query: Page & { state: (typeof SIGN_INTENT_STATES)[number] },
): Promise<SignIntentView[]> {
  const state = query.state === 'all' ? undefined : query.state;
  return (await signIntentsOf(caller.userid, state, query)).map(signIntentView);
}
