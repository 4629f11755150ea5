/**
 * GET /sites/info (also /info and /site): what a client needs before it signs in, in the shape
 * the Dozuki mobile apps parse (docs/wire-fidelity.md §Site info). Every value comes from the
 * site's settings; nothing here is hidden by a private site.
 */
import * as z from 'zod/mini';

/** One guide type as the apps list them when creating a guide: keyed by type. */
const guideTypeSchema = z.object({ title: z.string(), prompt: z.string() });

export const siteInfoSchema = z.object({
  siteid: z.int(),
  name: z.string(),
  domain: z.string(),
  title: z.string(),
  theme: z.string(),
  private: z.boolean(),
  description: z.string(),
  answers: z.boolean(),
  authentication: z.object({
    standard: z.boolean(),
    /** Only when the site signs in through an identity provider (absent otherwise, as the app tests `has("sso")`). */
    sso: z.optional(z.string()),
    'public-registration': z.boolean(),
  }),
  'guide-types': z.record(z.string(), guideTypeSchema),
  'object-name-singular': z.string(),
  'object-name-plural': z.string(),
  'feature-mobile-scanner': z.boolean(),
  'google-oauth2-clientid': z.nullable(z.string()),
  logo: z.nullable(z.object({ image: z.record(z.string(), z.string()) })),
});

export type SiteInfo = z.output<typeof siteInfoSchema>;
