/**
 * Request bodies of the approval routes, shared by approvals.routes.ts and the services (their
 * input types are z.output of these).
 */
import * as z from 'zod/mini';
import { MAX_APPROVAL_STAGES } from '../../shared/domain/approval-flow.ts';
import { DOCTYPES } from '../../shared/domain/doctypes.ts';

const id = z.int().check(z.positive());
const stage = z.object({
  name: z.optional(z.string().check(z.trim(), z.maxLength(200))),
  teamid: id,
  quorum: z.int().check(z.minimum(1), z.maximum(100)),
});
const stages = z.array(stage).check(z.minLength(1), z.maxLength(MAX_APPROVAL_STAGES));
const name = z.string().check(z.trim(), z.minLength(1), z.maxLength(200));
const description = z.optional(z.string().check(z.maxLength(5000)));
const password = z.string().check(z.minLength(1), z.maxLength(1000));

export const processCreateBody = z.object({ name, description, stages });
export const processPatchBody = z.object({ name: z.optional(name), description, stages: z.optional(stages) });
export const approvalRequestBody = z.object({
  doctype: z.enum(DOCTYPES),
  docid: id,
  notes: z.optional(z.string().check(z.maxLength(5000))),
});
export const signBody = z.object({
  meaning: z.enum(['approve', 'reject']),
  reason: z.string().check(z.minLength(1), z.maxLength(5000)),
  password: z.optional(password),
  signing_token: z.optional(z.string().check(z.regex(/^[0-9a-f]{64}$/))),
});
export const signingTokenBody = z.object({
  /** Left out by a caller who signs through their identity provider (their fresh step-up). */
  password: z.optional(password),
  login: z.optional(z.string().check(z.minLength(1), z.maxLength(254))),
});

export type StageInput = z.output<typeof stage>;
export type ProcessCreateInput = z.output<typeof processCreateBody>;
export type ProcessPatchInput = z.output<typeof processPatchBody>;
export type ApprovalRequestInput = z.output<typeof approvalRequestBody>;
export type SignInput = z.output<typeof signBody>;
export type SigningTokenInput = z.output<typeof signingTokenBody>;
