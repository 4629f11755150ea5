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
  /** Never null: a user without an avatar shows the site's default one (decision 195). */
  image: imageSchema,
  reputation: z.number(),
  url: z.string(),
  teams: z.array(z.int()),
  privileges: z.array(z.string()),
});

export type ImageView = z.output<typeof imageSchema>;
export type UserSummaryView = z.output<typeof userSummarySchema>;

/**
 * The site API token that acted where a record names who did (decision 260): shown as
 * `<field>_token` beside the field, which is then null. Never userid 0.
 */
export const actingTokenSchema = z.object({ tokenid: z.string(), name: z.string() });

/** `{<field>_token}` to spread into a view when a token acted; nothing for a person. */
export function actingTokenView<F extends string>(
  field: F,
  token: { tokenid: string; name: string } | undefined,
): { [K in `${F}_token`]?: { tokenid: string; name: string } } {
  return token ? ({ [`${field}_token`]: { tokenid: token.tokenid, name: token.name } } as never) : {};
}
