/**
 * Request schemas of the periodic review routes, shared by periodic-review.routes.ts and the
 * services (their input types are z.output of these).
 */
import * as z from 'zod/mini';
import { positiveTimestamp } from '../../shared/http/schemas.ts';
import { pagination, queryInt } from '../../shared/http/query.ts';
import { PERIOD_UNITS } from '../../shared/domain/review-period.ts';
import { DOCTYPES } from '../../shared/domain/doctypes.ts';

/**
 * Documents added or removed per request: each costs up to 3 + MAX_TITLE_TOKENS transaction
 * items, and one transaction holds 100 (with the audit records and schedule counts).
 */
export const MAX_DOCUMENT_CHANGES = 8;

const id = z.int().check(z.positive());
export const pageQuery = z.object(pagination);
const documentInput = z.object({
  doctype: z.enum(DOCTYPES),
  docid: id,
  reviewer_userid: z.optional(id),
  due_date: z.optional(positiveTimestamp),
});
const prdidList = z.array(id).check(z.minLength(1), z.maxLength(MAX_DOCUMENT_CHANGES));

export const scheduleBody = z.object({
  name: z.string().check(z.trim(), z.minLength(1), z.maxLength(200)),
  description: z.optional(z.string().check(z.maxLength(5000))),
  frequency_quantity: z.int().check(z.minimum(1), z.maximum(1200)),
  frequency_unit: z.enum(PERIOD_UNITS),
  reviewer_userid: z.optional(id),
});

export const addDocumentsBody = z.object({
  prsid: id,
  documents: z.array(documentInput).check(z.minLength(1), z.maxLength(MAX_DOCUMENT_CHANGES)),
});
export const removeDocumentsBody = z.object({ prdids: prdidList });
export const reviewBody = z.object({
  prdid: id,
  revisionid: id,
  outcome: z.enum(['approved', 'changes_requested']),
  notes: z.optional(z.string().check(z.maxLength(5000))),
  /** The reviewer's password; left out by a reviewer who signs through their identity provider (a fresh step-up). */
  password: z.optional(z.string().check(z.minLength(1), z.maxLength(1000))),
});

export const dueDocumentsQuery = z.object({ ...pagination, due_before: queryInt });
export const changeRequestsQuery = z.object({
  ...pagination,
  status: z._default(z.enum(['open', 'resolved', 'all']), 'open'),
});

export type ScheduleInput = z.output<typeof scheduleBody>;
export type DocumentInput = z.output<typeof documentInput>;
export type AddDocumentsInput = z.output<typeof addDocumentsBody>;
export type ReviewInput = z.output<typeof reviewBody>;
export type DueDocumentsQuery = z.output<typeof dueDocumentsQuery>;
export type ChangeRequestsQuery = z.output<typeof changeRequestsQuery>;
