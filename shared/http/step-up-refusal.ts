/**
 * The 403 of a signing route whose signer signs through a company identity provider and has no
 * fresh step-up, or typed a password (decision 237): where to re-authenticate. Declared as the
 * routes' `errorResponses` so the OpenAPI document shows it.
 */
import * as z from 'zod/mini';

export const stepUpRefusal = {
  '403': {
    description:
      'Not allowed to sign; for a signer who signs in through a company identity provider, a password or a ' +
      'missing or spent step-up: `{message, step_up_required: true, step_up_url}` (open step_up_url, then sign ' +
      'again without a password; docs/identity.md "Step-up at signing")',
    schema: z.object({
      message: z.string(),
      step_up_required: z.optional(z.literal(true)),
      step_up_url: z.optional(z.string()),
    }),
  },
};
