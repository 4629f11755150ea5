/** The badges Stepwise awards, and when. Pure rules; shared/db/entities/badge.ts stores them. */

export type BadgeLevel = 'bronze' | 'silver' | 'gold';

export interface BadgeDefinition {
  badgeid: string;
  title: string;
  description: string;
  level: BadgeLevel;
}

export const BADGES = {
  autobiographer: {
    badgeid: 'autobiographer',
    title: 'Autobiographer',
    description: 'Completed the "About" section of their profile',
    level: 'bronze',
  },
  teamPlayer: {
    badgeid: 'team_player',
    title: 'Team Player',
    description: 'Joined a team',
    level: 'bronze',
  },
} satisfies Record<string, BadgeDefinition>;
