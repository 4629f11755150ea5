/**
 * What a token wrote, as the wire shows it (decisions 244, 250): an author of userid 0 is a site API
 * token named by its name; npm run migrate stores it under MIGRATED_TOKENID, which no token holds.
 * A token's client guids are claimed under its tokenid, a user's under their userid.
 */
import { describe, expect, it } from 'vitest';
import {
  isWriterOf,
  MIGRATED_TOKENID,
  ownerKey,
  serviceAuthorOfWire,
  type Caller,
} from '../../shared/domain/caller.ts';

const token: Caller = {
  userid: 0,
  username: 'Sync',
  privileges: ['Admin'],
  teams: [],
  service: { tokenid: 'a1b2c3d4e5f60718', name: 'Sync', scopes: ['full'] },
};
const user: Caller = { userid: 7, username: 'Ann', privileges: [], teams: [] };

describe('serviceAuthorOfWire', () => {
  it("reads an author of userid 0 as a token's, by its name", () => {
    expect(serviceAuthorOfWire({ userid: 0, username: 'Importer bot' })).toEqual({
      service_author: { tokenid: MIGRATED_TOKENID, name: 'Importer bot' },
    });
  });

  it('adds nothing for a person or a missing author', () => {
    expect(serviceAuthorOfWire({ userid: 7, username: 'Ann' })).toEqual({});
    expect(serviceAuthorOfWire(null)).toEqual({});
    expect(serviceAuthorOfWire(undefined)).toEqual({});
  });

  it('makes no token (and no user) the writer of migrated token content', () => {
    const record = { userid: 0, ...serviceAuthorOfWire({ userid: 0, username: 'Sync' }) };
    expect(isWriterOf(token, record)).toBe(false);
    expect(isWriterOf(user, record)).toBe(false);
  });
});

describe('ownerKey', () => {
  it("keys a token's claims by its tokenid and a user's by their userid", () => {
    expect(ownerKey(token)).toBe('token-a1b2c3d4e5f60718');
    expect(ownerKey(user)).toBe(7);
  });
});
