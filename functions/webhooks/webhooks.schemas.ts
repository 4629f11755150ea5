/** Request bodies of the webhooks routes; the service takes their z.output. */
import * as z from 'zod/mini';

const url = z.string().check(z.minLength(1), z.maxLength(2000));
const events = z.array(z.string().check(z.minLength(1), z.maxLength(100))).check(z.minLength(1), z.maxLength(30));
const secret = z.string().check(z.minLength(16), z.maxLength(256));

export const createWebhookBody = z.object({ url, events, secret: z.optional(secret), active: z.optional(z.boolean()) });
export const updateWebhookBody = z.object({
  url: z.optional(url),
  events: z.optional(events),
  secret: z.optional(secret),
  active: z.optional(z.boolean()),
});

export type CreateWebhookInput = z.output<typeof createWebhookBody>;
export type UpdateWebhookInput = z.output<typeof updateWebhookBody>;
