/**
 * Tags on the wire: a bare array of tag names (GET /tags, a guide's or wiki page's tags, and the
 * answer of tagging one). Tags are lower case; the real item shape was not recorded (§3.11).
 */
import * as z from 'zod/mini';

export const tagListSchema = z.array(z.string());

export type TagListView = z.output<typeof tagListSchema>;
