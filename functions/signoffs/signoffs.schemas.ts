/** Request bodies of the signoff routes, shared by signoffs.routes.ts and signoffs.service.ts. */
import * as z from 'zod/mini';
import { clientGuidSchema } from '../../shared/domain/client-guid.ts';

const id = z.int().check(z.positive());
const comments = z.optional(z.string().check(z.maxLength(5000)));

export const signoffRequestBody = z.object({
  stage_assessmentid: id,
  comments,
  /** The device's own id of the request, unique per user (decision 224). */
  client_guid: z.optional(clientGuidSchema),
});
export const signoffResponseBody = z.object({ signoff_requestid: id, approved: z.optional(z.boolean()), comments });
/** Over the shoulder, step 1: the person not signed in names themselves (login or email) and types their password. */
export const initializeViaPasswordBody = z.object({
  login: z.optional(z.string().check(z.minLength(1))),
  email: z.optional(z.string().check(z.minLength(1))),
  password: z.string().check(z.minLength(1)),
});
export const finalizeBody = z.object({
  token: z.string().check(z.minLength(1), z.maxLength(200)),
  approved: z.optional(z.boolean()),
  comments,
});

export type SignoffRequestInput = z.output<typeof signoffRequestBody>;
export type SignoffResponseInput = z.output<typeof signoffResponseBody>;
export type InitializeViaPasswordInput = z.output<typeof initializeViaPasswordBody>;
export type FinalizeInput = z.output<typeof finalizeBody>;
