/**
 * The account rule's parts no HTTP request can reach while the rest holds (decision 259): the
 * last enabled Admin is never disabled or demoted (over HTTP only the Admin themself or a token
 * could try, and both are refused before this check), and what counts as a change.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import {
  type AccountActor,
  type AccountChange,
  requireMayChangeAccount as requireWithCount,
} from '../../shared/accounts/account-authority.ts';
import { ForbiddenError, ValidationError } from '../../shared/domain/errors.ts';

// The enabled Admins as the test sets them (unit files share modules, so no module mock).
const admins = { ids: [] as number[] };
const requireMayChangeAccount = (actor: AccountActor, target: any, change: AccountChange) =>
  requireWithCount(actor, target, change, false, async () => admins.ids);

const person = (userid: number) => ({
  caller: { userid, username: 'A', privileges: ['Admin' as const], teams: [] },
  impersonated: false,
});
const token = {
  caller: {
    userid: 0,
    username: 'T',
    privileges: ['Admin' as const],
    teams: [],
    service: { tokenid: 'abcdabcdabcdabcd', name: 'T', scopes: ['full' as const] },
  },
  impersonated: false,
};
const account = (userid: number, fields: Record<string, unknown> = {}): any => ({
  userid,
  privileges: ['Admin'],
  ...fields,
});

beforeEach(() => {
  admins.ids = [];
});

describe('the last enabled Admin', () => {
  it('is neither demoted nor disabled', async () => {
    admins.ids = [2];
    const demote = requireMayChangeAccount(person(1), account(2), { privileges: ['User'] });
    await expect(demote).rejects.toBeInstanceOf(ValidationError);
    await expect(demote).rejects.toThrow(/last enabled Admin/);
    await expect(requireMayChangeAccount(person(1), account(2), { active: false })).rejects.toThrow(/last enabled/);
  });

  it('may be demoted while another Admin is enabled', async () => {
    admins.ids = [2, 3];
    await expect(requireMayChangeAccount(person(1), account(2), { privileges: ['User'] })).resolves.toBeUndefined();
  });

  it('is not counted when already disabled, and an unchanged role is no change', async () => {
    await expect(
      requireMayChangeAccount(person(1), account(2, { disabled: true }), { privileges: ['User'] }),
    ).resolves.toBeUndefined();
    await expect(requireMayChangeAccount(token, account(2), { privileges: ['Admin'] })).resolves.toBeUndefined();
  });
});

describe('tokens', () => {
  it('are refused on an Admin before the count is read', async () => {
    admins.ids = [2, 3];
    await expect(requireMayChangeAccount(token, account(2), { active: false })).rejects.toBeInstanceOf(ForbiddenError);
    await expect(
      requireMayChangeAccount({ ...person(5), impersonated: true }, account(2), { email: true }),
    ).rejects.toBeInstanceOf(ForbiddenError);
  });
});
