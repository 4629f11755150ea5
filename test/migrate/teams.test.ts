/**
 * The teams crawler against a live source (the test stack): team items, search words and member
 * items equal what the API stored, but for MEMBER_ATTRIBUTES_NOT_EXPOSED (reasons next to the
 * crawler); a private team's members the token may not see are reported, not fatal.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createTeam, createUser, loginAdmin, type TestTeam, type TestUser } from '../support/api.ts';
import { MEMBER_ATTRIBUTES_NOT_EXPOSED, teamsCrawler } from '../../infra/ops/migrate/resources/teams.ts';
import {
  memoryCrawl,
  storedItem,
  storedPartition,
  withoutAttributes,
  type MemoryCrawl,
} from './support/crawl-harness.ts';

const pad = (id: number) => String(id).padStart(12, '0');

let admin: string;
let members: TestUser[];
let openTeam: TestTeam;
let closedTeam: TestTeam;
let crawl: MemoryCrawl;

beforeAll(async () => {
  admin = await loginAdmin();
  members = [await createUser(), await createUser()];
  openTeam = await createTeam({ description: 'Line 3 maintenance', location: 'Hall B' });
  closedTeam = await createTeam({ privacy: 'private' });
  for (const member of members) {
    expect((await api('PUT', `/teams/${openTeam.teamid}/users/${member.userid}`, { token: admin })).status).toBe(200);
  }
  expect((await api('PUT', `/teams/${closedTeam.teamid}/users/${members[0].userid}`, { token: admin })).status).toBe(
    200,
  );
  crawl = memoryCrawl(admin);
  await crawl.run(teamsCrawler);
});

describe('teams crawler', () => {
  it('writes each team item and its search words as stored', async () => {
    for (const team of [openTeam, closedTeam]) {
      const stored = await storedItem(`TEAM#${team.teamid}`, 'TEAM');
      expect(crawl.item(`TEAM#${team.teamid}`, 'TEAM')).toEqual(stored);
      const tokens = await storedPartition('SEARCH#TEAM');
      const own = tokens.filter((token) => String(token.sk).endsWith(`#${pad(team.teamid)}`));
      expect(own.length).toBeGreaterThan(0);
      for (const token of own) expect(crawl.item(String(token.pk), String(token.sk))).toEqual(token);
    }
  });

  it('writes every member item as stored, but for when each joined', async () => {
    for (const team of [openTeam, closedTeam]) {
      const stored = await storedPartition(`TEAM#${team.teamid}`, 'MEMBER#');
      expect(stored.length).toBeGreaterThan(0);
      for (const member of stored) {
        const crawled = crawl.item(String(member.pk), String(member.sk));
        expect(withoutAttributes(crawled, MEMBER_ATTRIBUTES_NOT_EXPOSED)).toEqual(
          withoutAttributes(member, MEMBER_ATTRIBUTES_NOT_EXPOSED),
        );
      }
      const crawledMembers = [...crawl.items.values()].filter(
        (item) => item.pk === `TEAM#${team.teamid}` && String(item.sk).startsWith('MEMBER#'),
      );
      expect(crawledMembers).toHaveLength(stored.length);
    }
  });

  it('moves the team counter past the ids it carried', () => {
    expect(crawl.ids.get('team')).toBeGreaterThanOrEqual(closedTeam.teamid);
    expect(crawl.completed).toContain(`team:${openTeam.teamid}`);
  });

  it("reports a private team's members the source refuses (403) as unexposed and carries the team", async () => {
    const outsider = await createUser();
    const limited = memoryCrawl(outsider.token);
    await limited.run(teamsCrawler);
    expect(limited.unexposedDetail('members of private teams the migrating account does not manage')).toContain('403');
    expect(limited.item(`TEAM#${closedTeam.teamid}`, 'TEAM')).toBeDefined();
    expect(limited.item(`TEAM#${closedTeam.teamid}`, `MEMBER#${pad(members[0].userid)}`)).toBeUndefined();
    expect(limited.item(`TEAM#${openTeam.teamid}`, `MEMBER#${pad(members[0].userid)}`)).toBeDefined();
  });
});
