/**
 * A badge a user earned (GET /users/{userid}/badges, GET /user/badges; the real shape was not
 * recorded, docs/wire-fidelity.md §3.26): the badge's definition, whose it is and when it was awarded.
 */
import * as z from 'zod/mini';
import type { BadgeRecord } from '../db/entities/badge.ts';

export const badgeSchema = z.object({
  badgeid: z.string(),
  title: z.string(),
  description: z.string(),
  level: z.enum(['bronze', 'silver', 'gold']),
  userid: z.int(),
  date: z.int(),
});

export type BadgeView = z.output<typeof badgeSchema>;

export function badgeView(badge: BadgeRecord): BadgeView {
  return {
    badgeid: badge.badgeid,
    title: badge.title,
    description: badge.description,
    level: badge.level,
    userid: badge.userid,
    date: badge.date,
  };
}
