/** Request schemas the comments routes validate and the comments service takes as input types (z.output). */
import * as z from 'zod/mini';
import { orderQuery } from '../../shared/http/schemas.ts';
import { pagination, queryInt } from '../../shared/http/query.ts';
import { clientGuidSchema } from '../../shared/domain/client-guid.ts';

const text = z.string().check(z.maxLength(20_000));

export const commentListQuery = z.object({
  ...pagination,
  order: orderQuery,
  createdSince: queryInt,
  modifiedSince: queryInt,
  context: z.optional(z.string().check(z.maxLength(20))),
  langid: z.optional(z.string().check(z.maxLength(10))),
  /** The comment the caller made under this client guid (decision 224). */
  client_guid: z.optional(clientGuidSchema),
});

export const newCommentBody = z.object({
  text,
  parentid: z.optional(z.nullable(z.int().check(z.positive()))),
  langid: z.optional(z.string().check(z.maxLength(10))),
  langId: z.optional(z.string().check(z.maxLength(10))),
  /** The device's own id of the comment, unique per user (decision 224). */
  client_guid: z.optional(clientGuidSchema),
});

export const commentEditBody = z.object({ text });

export type CommentListQuery = z.output<typeof commentListQuery>;
export type NewComment = z.output<typeof newCommentBody>;
export type CommentEdit = z.output<typeof commentEditBody>;
