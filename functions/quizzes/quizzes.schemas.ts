/**
 * Request schemas of the quiz routes, shared by quizzes.routes.ts (validation, OpenAPI) and the
 * services (their input types are z.output of these).
 */
import * as z from 'zod/mini';
import { MAX_OFFSET, pagination } from '../../shared/http/query.ts';
import { clientGuidSchema } from '../../shared/domain/client-guid.ts';

export const SORT_KEYS = [
  'guideid',
  'category',
  'quiz_title',
  'guide_title',
  'release_date',
  'sessions_submitted',
] as const;
export type SortKey = (typeof SORT_KEYS)[number];

const id = z.int().check(z.positive());
const ids = z.array(id).check(z.minLength(1), z.maxLength(100));

const direction = z.pipe(
  z._default(z.string(), 'DESC'),
  z.pipe(
    z.transform((value: string) => value.toUpperCase()),
    z.enum(['ASC', 'DESC']),
  ),
);
const orderby = z._default(z.enum(SORT_KEYS), 'release_date');
const text = z.optional(z.string().check(z.maxLength(200)));

export const quizListQuery = z.object({ ...pagination, direction, orderby, category: text, search: text });
export const quizSearchBody = z.object({
  limit: z._default(
    z.pipe(
      z.int().check(z.minimum(1)),
      z.transform((value: number) => Math.min(value, 200)),
    ),
    20,
  ),
  offset: z._default(z.int().check(z.minimum(0), z.maximum(MAX_OFFSET)), 0),
  orderby,
  direction,
  category: text,
  search: text,
  enabled: z.optional(z.boolean()),
  guideid: z.optional(id),
});
export const quizIdsBody = z.object({ quizids: ids });
export const attachGuideBody = z.object({ quizid: id, guideid: id });
export const attachWikiBody = z.object({ quizid: id, wikiid: id });
export const sessionBody = z.object({
  quizid: id,
  response_json: z.optional(z.unknown()),
  /** Submit: the device's own id of this submission, unique per user (decision 224). */
  client_guid: z.optional(clientGuidSchema),
});
export const quizIdBody = z.object({ quizid: id });
export const sessionListQuery = z.object({
  ...pagination,
  query: text,
  /** The caller's submission made under this client guid (decision 224): a list of at most one. */
  client_guid: z.optional(clientGuidSchema),
});
export const sessionIdsBody = z.object({ quiz_sessionids: ids });
const documentRef = z.object({ doctype: z.enum(['guide', 'wiki']), docid: id });
export const invalidateUserBody = z.object({ documents: z.optional(z.array(documentRef).check(z.maxLength(100))) });

/** What a quiz list reads: GET /quizzes's query or POST /quizzes/getQuizzes's body, `orderby` as `sort`. */
export type ListCriteria = Omit<z.output<typeof quizSearchBody>, 'orderby'> & { sort: SortKey };
export type AttachGuideInput = z.output<typeof attachGuideBody>;
export type AttachWikiInput = z.output<typeof attachWikiBody>;
export type SessionInput = z.output<typeof sessionBody>;
export type SessionListQuery = z.output<typeof sessionListQuery>;
export type InvalidateUserInput = z.output<typeof invalidateUserBody>;
