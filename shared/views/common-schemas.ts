/**
 * Wire schemas of the objects many answers embed (docs/wire-fidelity.md §2.1 Image, §2.2 user summary).
 * Route `response` schemas build on these, so the OpenAPI document and the API tests describe
 * and check every answer from one declaration; view builders return `z.output` of them.
 */
import * as z from 'zod/mini';

/** The Image object: `id`, `guid`, `original` and a URL per size that exists (sizes vary). */
export const imageSchema = z.catchall(
  z.object({ id: z.int(), guid: z.optional(z.string()), original: z.optional(z.string()) }),
  z.union([z.string(), z.int()]),
);

/** A user as lists, authors and team members show them. */
export const userSummarySchema = z.object({
  userid: z.int(),
  username: z.string(),
  unique_username: z.nullable(z.string()),
  join_date: z.int(),
  image: z.nullable(imageSchema),
  reputation: z.number(),
  url: z.string(),
  teams: z.array(z.int()),
  privileges: z.array(z.string()),
});

export type ImageView = z.output<typeof imageSchema>;
export type UserSummaryView = z.output<typeof userSummarySchema>;
