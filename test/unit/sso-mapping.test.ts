/** The role rule of decision 241: managed roles follow the claim; others, and Admin by default, stay. */
import { describe, expect, it } from 'vitest';
import { rolesAfterSignIn } from '../../functions/sso/sso-mapping.ts';
import type { IdentityProviderRecord } from '../../shared/db/entities/identity-provider.ts';

const provider = (role_map: IdentityProviderRecord['role_map'], demote_admins?: boolean) =>
  ({ role_map, demote_admins }) as IdentityProviderRecord;

describe('rolesAfterSignIn', () => {
  it('keeps a role the mapping does not name, whatever the claim', () => {
    expect(rolesAfterSignIn(provider({ admins: 'Admin' }), ['User', 'Author'], [])).toEqual(['User', 'Author']);
    expect(rolesAfterSignIn(provider({ admins: 'Admin' }), ['User', 'Author'], ['admins'])).toEqual([
      'User',
      'Author',
      'Admin',
    ]);
  });

  it('takes a mapped role away when the claim no longer carries it; Admin only with demote_admins', () => {
    const map = { authors: 'Author', admins: 'Admin' } as const;
    expect(rolesAfterSignIn(provider(map), ['User', 'Author', 'Admin'], [])).toEqual(['User', 'Admin']);
    expect(rolesAfterSignIn(provider(map, true), ['User', 'Author', 'Admin'], [])).toEqual(['User']);
    // An Admin the mapping does not name is never touched, even with demote_admins.
    expect(rolesAfterSignIn(provider({ authors: 'Author' }, true), ['User', 'Admin'], [])).toEqual(['User', 'Admin']);
  });

  it('always leaves User', () => {
    expect(rolesAfterSignIn(provider({ staff: 'User' }), ['User'], [])).toEqual(['User']);
  });
});
